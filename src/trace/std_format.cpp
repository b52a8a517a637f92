//===- trace/std_format.cpp - RAPID "STD" trace import --------------------===//
//
// STD is the text format of the RAPID benchmarks: one event per line,
//   `<thread>|<op>(<operand>)[|<loc>]`   e.g. `T0|w(V123.4[0])|345`.
// Import rules (`racepredict convert x.std x.rpt.txt` shows the result):
//  - r(x)/w(x) become `rd x 0`/`wr x 0`; acq(l)/rel(l) become `acq l`/`rel l`;
//    fork(T)/join(T) become `fork T`/`join T`. Names are kept verbatim.
//  - begin(a)/end(a) are RAPID's atomic-block (transaction) markers, not
//    thread start/exit: they become custom events `ev begin a`/`ev end a`,
//    which order nothing but stay available to order properties. `req(l)`
//    (a lock request, written by some STD producers) carries nothing the
//    model uses and is skipped.
//  - Values. STD records none. Every read and write gets the value 0 and every
//    location gets `init x 0`, so whatever write a read is moved after, it
//    still sees its recorded value: reads are never inconsistent.
//  - Branches. None are emitted, so no event depends on any read (Φ_cf is
//    empty). Together with the values above, reads never restrict a
//    reordering. This is the control-flow-free reading of a trace that has
//    no control-flow information: it predicts every race of an execution in
//    which no thread's path depends on shared values. It is more permissive
//    than RAPID's sound analyses (which keep every read's last writer); add
//    `br` lines to the converted text to be conservative.
//  - `<loc>` becomes the source location `std:<loc>` when it is a number,
//    `<file>:<line>` when it has that form, else `std:0` with `<loc>` as the
//    function name.
// Errors name `file:line`.
//
#include "racepredict/trace/std_format.h"

#include <charconv>
#include <istream>
#include <unordered_map>

namespace racepredict::trace {
namespace {

bool parseLine(const std::string &s, uint32_t *out) {
  if (s.empty())
    return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

/// Names end up as words of the text format: no blanks, no comment sign.
bool usableName(const std::string &s) {
  if (s.empty() || s[0] == '@')
    return false;
  for (unsigned char c : s)
    if (c <= ' ' || c == '#' || c == 0x7f)
      return false;
  return true;
}

class StdParser {
public:
  explicit StdParser(const std::string &name) : name_(name) {}

  Expected<bool> line(std::string raw, size_t lineNo) {
    lineNo_ = lineNo;
    while (!raw.empty() &&
           (raw.back() == '\r' || raw.back() == ' ' || raw.back() == '\t'))
      raw.pop_back();
    size_t b = raw.find_first_not_of(" \t");
    if (b == std::string::npos || raw[b] == '#')
      return true;
    raw.erase(0, b);
    size_t bar1 = raw.find('|');
    if (bar1 == std::string::npos)
      return fail("expected `<thread>|<op>(<operand>)|<loc>`");
    size_t bar2 = raw.find('|', bar1 + 1);
    std::string thread = raw.substr(0, bar1);
    std::string opField =
        raw.substr(bar1 + 1, bar2 == std::string::npos ? std::string::npos
                                                       : bar2 - bar1 - 1);
    std::string loc =
        bar2 == std::string::npos ? std::string() : raw.substr(bar2 + 1);
    size_t paren = opField.find('(');
    if (paren == std::string::npos || opField.back() != ')')
      return fail("expected `<op>(<operand>)`, got '" + opField + "'");
    std::string op = opField.substr(0, paren);
    std::string arg = opField.substr(paren + 1, opField.size() - paren - 2);
    if (!usableName(thread))
      return fail("bad thread name '" + thread + "'");
    if (!usableName(arg))
      return fail("bad operand '" + arg + "' (empty, or blanks or '#')");
    if (op == "req")
      return true;
    Event e{};
    e.thread = t_.table(NameSpace::Thread).intern(thread);
    e.extra = kNone;
    if (op == "r" || op == "w") {
      e.kind = op == "r" ? EventKind::Read : EventKind::Write;
      e.obj = t_.table(NameSpace::Location).intern(arg);
      t_.initValues.emplace(e.obj, 0);
    } else if (op == "acq" || op == "rel") {
      e.kind = op == "acq" ? EventKind::Acquire : EventKind::Release;
      e.obj = t_.table(NameSpace::Lock).intern(arg);
    } else if (op == "fork" || op == "join") {
      e.kind = op == "fork" ? EventKind::Fork : EventKind::Join;
      e.obj = t_.table(NameSpace::Thread).intern(arg);
      if (e.obj == e.thread)
        return fail("a thread cannot " + op + " itself");
    } else if (op == "begin" || op == "end") {
      auto &custom = t_.table(NameSpace::Custom);
      e.kind = EventKind::Custom;
      e.obj = custom.intern(op);
      e.extra = t_.addArgs({custom.intern(arg)});
    } else {
      return fail("unknown STD op '" + op +
                  "' (expected r w acq rel fork join begin end)");
    }
    if (!loc.empty()) {
      auto src = source(loc);
      if (!src)
        return src.error();
      e.src = *src;
    }
    t_.events.push_back(e);
    return true;
  }

  Trace take() { return std::move(t_); }

private:
  Error fail(const std::string &msg) const {
    return Error{name_ + ":" + std::to_string(lineNo_) + ": " + msg};
  }

  Expected<SrcId> source(const std::string &loc) {
    auto it = srcCache_.find(loc);
    if (it != srcCache_.end())
      return it->second;
    SourceLoc s;
    size_t colon = loc.rfind(':');
    uint32_t line = 0;
    if (parseLine(loc, &line)) {
      s.file = "std";
      s.line = line;
    } else if (colon != std::string::npos && colon > 0 &&
               loc.find(':') == colon && loc.find('@') == std::string::npos &&
               usableName(loc) && parseLine(loc.substr(colon + 1), &line)) {
      s.file = loc.substr(0, colon);
      s.line = line;
    } else if (usableName(loc)) {
      s.file = "std";
      s.function = loc;
    } else {
      return fail("bad location '" + loc + "'");
    }
    SrcId id = t_.addSource(std::move(s));
    srcCache_.emplace(loc, id);
    return id;
  }

  const std::string &name_;
  size_t lineNo_ = 0;
  Trace t_;
  std::unordered_map<std::string, SrcId> srcCache_;
};

} // namespace

Expected<Trace> parseStdTrace(std::istream &in, const std::string &name) {
  StdParser p(name);
  std::string line;
  size_t lineNo = 0;
  while (std::getline(in, line)) {
    auto r = p.line(std::move(line), ++lineNo);
    if (!r)
      return r.error();
  }
  if (in.bad())
    return Error{name + ": read error after line " + std::to_string(lineNo)};
  return p.take();
}

} // namespace racepredict::trace
