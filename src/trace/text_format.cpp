//===- trace/text_format.cpp - Text trace reader
//---------------------------===//
#include "racepredict/trace/text_format.h"

#include <algorithm>
#include <charconv>
#include <istream>
#include <ostream>
#include <sstream>
#include <unordered_map>
#include <vector>

namespace racepredict::trace {
namespace {

struct OpInfo {
  EventKind kind;
  int minOperands;
  int maxOperands; // -1 = unbounded
};

const std::unordered_map<std::string, OpInfo> &opTable() {
  static const std::unordered_map<std::string, OpInfo> table = {
      {"begin", {EventKind::Begin, 0, 0}},
      {"end", {EventKind::End, 0, 0}},
      {"fork", {EventKind::Fork, 1, 1}},
      {"join", {EventKind::Join, 1, 1}},
      {"acq", {EventKind::Acquire, 1, 1}},
      {"rel", {EventKind::Release, 1, 1}},
      {"racq", {EventKind::RAcquire, 1, 1}},
      {"tryfail", {EventKind::TryFail, 1, 1}},
      {"rd", {EventKind::Read, 2, 2}},
      {"wr", {EventKind::Write, 2, -1}}, // [<- i j ...]: write dependences
      {"ard", {EventKind::AtomicRead, 2, 2}},
      {"awr", {EventKind::AtomicWrite, 2, 2}},
      {"armw", {EventKind::AtomicRmw, 2, 3}},
      {"br", {EventKind::Branch, 0, -1}},
      {"wait", {EventKind::Wait, 2, 4}},
      {"signal", {EventKind::Signal, 1, 1}},
      {"broadcast", {EventKind::Broadcast, 1, 1}},
      {"barrier", {EventKind::Barrier, 2, 2}},
      {"seminit", {EventKind::SemInit, 1, 2}},
      {"post", {EventKind::SemPost, 1, 1}},
      {"semwait", {EventKind::SemWait, 1, 1}},
      {"alloc", {EventKind::Alloc, 2, 2}},
      {"free", {EventKind::Free, 1, 2}},
      {"ev", {EventKind::Custom, 1, -1}},
      {"send", {EventKind::Send, 3, 3}},
      {"recv", {EventKind::Recv, 3, 3}},
  };
  return table;
}

bool parseInt(const std::string &s, int64_t *out) {
  const char *b = s.data();
  const char *e = s.data() + s.size();
  bool neg = false;
  if (b != e && (*b == '-' || *b == '+')) {
    neg = *b == '-';
    ++b;
  }
  int base = 10;
  if (e - b > 2 && b[0] == '0' && (b[1] == 'x' || b[1] == 'X')) {
    base = 16;
    b += 2;
  }
  uint64_t v = 0;
  auto res = std::from_chars(b, e, v, base);
  if (res.ec != std::errc() || res.ptr != e || b == e)
    return false;
  // Decimal is a signed 64-bit value (-2^63 .. 2^63-1); hex is its bit
  // pattern (0xffffffffffffffff is -1), as values of any width are stored.
  constexpr uint64_t kMinMagnitude = uint64_t{1} << 63;
  if (neg ? v > kMinMagnitude : base == 10 && v >= kMinMagnitude)
    return false;
  *out = static_cast<int64_t>(neg ? 0 - v : v);
  return true;
}

std::vector<std::string> splitFields(const std::string &line) {
  std::vector<std::string> out;
  std::istringstream ss(line);
  std::string tok;
  while (ss >> tok)
    out.push_back(tok);
  return out;
}

/// `%XX` escapes in file and function names of `@` tokens (written by
/// text_writer.cpp): recorded C++ names have blanks, which the space-separated
/// format could not otherwise carry.

std::optional<std::string> unescapeSourceName(const std::string &s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out.push_back(s[i]);
      continue;
    }
    auto hex = [](char c) {
      return c >= '0' && c <= '9'   ? c - '0'
             : c >= 'A' && c <= 'F' ? c - 'A' + 10
             : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                    : -1;
    };
    // A '%' that starts no escape is itself (traces written before the
    // escapes existed may have one in a file name).
    if (i + 2 >= s.size() || hex(s[i + 1]) < 0 || hex(s[i + 2]) < 0) {
      out.push_back('%');
      continue;
    }
    out.push_back(static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2])));
    i += 2;
  }
  return out;
}

class LineParser {
public:
  LineParser(Trace &t, std::string name) : t_(t), name_(std::move(name)) {}

  Expected<bool> parseLine(const std::string &raw, size_t lineNo) {
    lineNo_ = lineNo;
    std::string line = raw.substr(0, raw.find('#'));
    // `#` inside `@file:line` cannot occur in practice; comments win.
    std::vector<std::string> f = splitFields(line);
    if (f.empty())
      return true;
    if (f[0] == "init") {
      int64_t v;
      if (f.size() != 3 || !parseInt(f[2], &v))
        return fail("`init` takes a location and an integer value");
      t_.initValues[t_.table(NameSpace::Location).intern(f[1])] = v;
      return true;
    }
    if (f[0] == "stop")
      return stopLine(f);
    if (f[0] == "blocked")
      return blockedLine(f);
    // Trailing `@` tokens: the event's location, then its call stack, one
    // call site per token, innermost first (`@-` = no location).
    std::vector<SrcId> frames;
    while (f.size() > 2 && f.back().size() > 1 && f.back()[0] == '@') {
      SrcId id = 0;
      if (f.back() != "@-") {
        auto loc = parseSource(f.back());
        if (!loc)
          return fail("malformed source location '" + f.back() +
                      "' (expected @file:line[:col][@function])");
        id = *loc;
      }
      frames.push_back(id);
      f.pop_back();
    }
    std::reverse(frames.begin(), frames.end());
    SrcId src = frames.empty() ? 0 : frames[0];
    uint32_t stack = 0;
    for (size_t i = frames.size(); i-- > 1;)
      stack = t_.pushStack(stack, frames[i]);
    if (f.size() < 2)
      return fail("expected `<thread> <op> [operands...]`");
    auto it = opTable().find(f[1]);
    if (it == opTable().end())
      return fail("unknown op '" + f[1] + "'");
    const OpInfo &op = it->second;
    std::vector<std::string> ops(f.begin() + 2, f.end());
    // A trailing `late`: a timed call that returned after its deadline (a
    // lock named `late` alone is still `acq late`).
    bool late = mayPassDeadline(op.kind) &&
                ops.size() > static_cast<size_t>(op.minOperands) &&
                ops.back() == "late";
    if (late)
      ops.pop_back();
    // Then `try`: a try-acquire that succeeded (`acq m try late` has both).
    bool tried = mayBeTryAcquire(op.kind) &&
                 ops.size() > static_cast<size_t>(op.minOperands) &&
                 ops.back() == "try";
    if (tried)
      ops.pop_back();
    Event e{};
    e.thread = t_.table(NameSpace::Thread).intern(f[0]);
    e.kind = op.kind;
    e.src = src;
    e.extra = kNone;
    int n = static_cast<int>(ops.size());
    if (op.kind != EventKind::Branch && op.kind != EventKind::Wait &&
        (n < op.minOperands || (op.maxOperands >= 0 && n > op.maxOperands)))
      return fail("'" + f[1] + "' takes " + operandText(op) + ", got " +
                  std::to_string(n));
    auto r = fill(e, f[1], ops);
    if (!r)
      return r;
    if (late)
      e.flags |= kEventPastDeadline;
    if (tried)
      e.flags |= kEventTryAcquire;
    if (stack != 0 && t_.eventStacks.size() < t_.events.size())
      t_.eventStacks.resize(t_.events.size(), 0);
    if (stack != 0 || !t_.eventStacks.empty())
      t_.eventStacks.push_back(stack);
    t_.events.push_back(e);
    return true;
  }

private:
  /// `stop REASON VALUE [TEXT...]` (trace/recording_stop.h).
  Expected<bool> stopLine(const std::vector<std::string> &f) {
    auto reason = f.size() >= 3 ? parseStopReason(f[1]) : std::nullopt;
    int64_t v = 0;
    if (!reason || !parseInt(f[2], &v) || v < 0)
      return fail("`stop` takes a reason (signal, max_seconds, max_events, "
                  "max_trace_bytes, deadlock, stuck_hook, exec), a number "
                  "and an optional text");
    RecordingStop s;
    s.reason = *reason;
    s.value = static_cast<uint64_t>(v);
    for (size_t i = 3; i < f.size(); ++i)
      s.text += (i > 3 ? " " : "") + f[i];
    if (t_.stop)
      s.blocked = std::move(t_.stop->blocked);
    t_.stop = std::move(s);
    return true;
  }
  /// `blocked THREAD OP OBJECT [@file:line[:col]]`: a thread blocked in a
  /// call when the recording stopped.
  Expected<bool> blockedLine(std::vector<std::string> f) {
    SrcId src = 0;
    if (f.size() == 5 && f[4].size() > 1 && f[4][0] == '@') {
      auto loc = f[4] == "@-" ? std::optional<SrcId>(0) : parseSource(f[4]);
      if (!loc)
        return fail("malformed source location '" + f[4] + "'");
      src = *loc;
      f.pop_back();
    }
    auto it = f.size() == 4 ? opTable().find(f[2]) : opTable().end();
    if (it == opTable().end() || !isBlockingOp(it->second.kind))
      return fail("`blocked` takes a thread, a blocking op (acq, racq, "
                  "join, wait, semwait, barrier), its object and an "
                  "optional @location");
    if (!t_.stop)
      t_.stop = RecordingStop{};
    BlockedThread b;
    b.thread = t_.table(NameSpace::Thread).intern(f[1]);
    b.op = it->second.kind;
    bool has = false;
    b.object = t_.table(objNameSpace(b.op, &has)).intern(f[3]);
    b.loc = src;
    t_.stop->blocked.push_back(b);
    return true;
  }
  static std::string operandText(const OpInfo &op) {
    if (op.maxOperands < 0)
      return "at least " + std::to_string(op.minOperands) + " operand(s)";
    if (op.minOperands == op.maxOperands)
      return std::to_string(op.minOperands) + " operand(s)";
    return std::to_string(op.minOperands) + " to " +
           std::to_string(op.maxOperands) + " operands";
  }

  Error fail(const std::string &msg) const {
    return Error{name_ + ":" + std::to_string(lineNo_) + ": " + msg};
  }

  std::optional<SrcId> parseSource(const std::string &tok) {
    std::string body = tok.substr(1);
    std::string func;
    size_t at = body.find('@');
    if (at != std::string::npos) {
      func = body.substr(at + 1);
      body = body.substr(0, at);
    }
    // file:line[:col]; the file itself may not contain ':' followed by digits.
    std::vector<std::string> parts;
    size_t start = 0;
    for (size_t i = 0; i <= body.size(); ++i)
      if (i == body.size() || body[i] == ':') {
        parts.push_back(body.substr(start, i - start));
        start = i + 1;
      }
    if (parts.size() < 2 || parts.size() > 3 || parts[0].empty())
      return std::nullopt;
    auto file = unescapeSourceName(parts[0]);
    auto fn = unescapeSourceName(func);
    if (!file || !fn)
      return std::nullopt;
    int64_t line = 0, col = 0;
    if (!parseInt(parts[1], &line) || line < 0 || line > UINT32_MAX)
      return std::nullopt;
    if (parts.size() == 3 &&
        (!parseInt(parts[2], &col) || col < 0 || col > UINT32_MAX))
      return std::nullopt;
    std::string key = tok;
    auto it = srcCache_.find(key);
    if (it != srcCache_.end())
      return it->second;
    SourceLoc loc{*file, static_cast<uint32_t>(line),
                  static_cast<uint32_t>(col), *fn};
    SrcId id = t_.addSource(std::move(loc));
    srcCache_.emplace(key, id);
    return id;
  }

  Expected<bool> value(const std::string &s, int64_t *v) {
    if (!parseInt(s, v))
      return fail("expected an integer value, got '" + s + "'");
    return true;
  }

  Expected<bool> eventIndices(const std::vector<std::string> &ops, size_t from,
                              std::vector<EventId> *out) {
    for (size_t i = from; i < ops.size(); ++i) {
      int64_t v;
      if (!parseInt(ops[i], &v) || v < 0)
        return fail("expected an event index after '<-', got '" + ops[i] + "'");
      if (static_cast<size_t>(v) >= t_.events.size())
        return fail("'<- " + ops[i] + "' names an event that is not before " +
                    "this one (events so far: " +
                    std::to_string(t_.events.size()) + ")");
      out->push_back(static_cast<EventId>(v));
    }
    return true;
  }

  /// `<- i j ...` of a branch or write: earlier reads of its thread.
  Expected<bool> dependences(Event &e, const char *op,
                             const std::vector<std::string> &ops, size_t from) {
    std::vector<EventId> deps;
    auto r = eventIndices(ops, from, &deps);
    if (!r)
      return r;
    for (EventId d : deps) {
      const Event &de = t_.events[d];
      if (de.thread != e.thread || !readsValue(de.kind))
        return fail(std::string("'") + op + " <- " + std::to_string(d) +
                    "': event " + std::to_string(d) +
                    " is not a read of thread " + t_.threadName(e.thread));
    }
    e.extra = t_.addDeps(deps);
    return true;
  }

  Expected<bool> fill(Event &e, const std::string &op,
                      const std::vector<std::string> &ops) {
    auto &loc = t_.table(NameSpace::Location);
    switch (e.kind) {
    case EventKind::Begin:
    case EventKind::End:
      return true;
    case EventKind::Fork:
    case EventKind::Join:
      e.obj = t_.table(NameSpace::Thread).intern(ops[0]);
      if (e.obj == e.thread)
        return fail("a thread cannot " + op + " itself");
      return true;
    case EventKind::Acquire:
    case EventKind::Release:
    case EventKind::RAcquire:
    case EventKind::TryFail:
      e.obj = t_.table(NameSpace::Lock).intern(ops[0]);
      return true;
    case EventKind::Read:
    case EventKind::AtomicRead:
    case EventKind::AtomicWrite:
      e.obj = loc.intern(ops[0]);
      return value(ops[1], &e.value);
    case EventKind::Write: {
      e.obj = loc.intern(ops[0]);
      auto r = value(ops[1], &e.value);
      if (!r || ops.size() == 2)
        return r;
      if (ops[2] != "<-")
        return fail("'wr' takes `location value [<- i j ...]`, got '" + ops[2] +
                    "'");
      return dependences(e, "wr", ops, 3);
    }
    case EventKind::AtomicRmw: {
      e.obj = loc.intern(ops[0]);
      auto r = value(ops[1], &e.value);
      if (!r)
        return r;
      if (ops.size() == 3) {
        int64_t old;
        auto r2 = value(ops[2], &old);
        if (!r2)
          return r2;
        e.extra = static_cast<uint32_t>(t_.rmwOld.size());
        t_.rmwOld.push_back(old);
      }
      return true;
    }
    case EventKind::Branch: {
      if (ops.empty())
        return true;
      if (ops[0] != "<-")
        return fail("'br' takes no operands or '<- i j ...', got '" + ops[0] +
                    "'");
      return dependences(e, "br", ops, 1);
    }
    case EventKind::Wait: {
      if (ops.size() != 2 && !(ops.size() == 4 && ops[2] == "<-"))
        return fail("'wait' takes `cond lock [<- notify]`");
      e.obj = t_.table(NameSpace::Cond).intern(ops[0]);
      e.aux = t_.table(NameSpace::Lock).intern(ops[1]);
      if (ops.size() == 4 && ops[3] == "none") {
        e.flags |=
            kEventExplicitMatch; // explicitly unmatched (spurious or timed out)
      } else if (ops.size() == 4) {
        std::vector<EventId> n;
        auto r = eventIndices(ops, 3, &n);
        if (!r)
          return r;
        const Event &ne = t_.events[n[0]];
        if (!isNotify(ne.kind) || ne.obj != e.obj)
          return fail("'wait ... <- " + ops[3] +
                      "': that event is not a signal/broadcast on " + ops[0]);
        e.extra = n[0];
        e.flags |= kEventExplicitMatch; // finishTrace keeps it
      }
      return true;
    }
    case EventKind::Signal:
    case EventKind::Broadcast:
      e.obj = t_.table(NameSpace::Cond).intern(ops[0]);
      return true;
    case EventKind::Barrier: {
      e.obj = t_.table(NameSpace::Barrier).intern(ops[0]);
      int64_t c;
      if (!parseInt(ops[1], &c) || c < 1 || c > 1000000)
        return fail("'barrier' count must be a positive integer, got '" +
                    ops[1] + "'");
      e.aux = static_cast<uint32_t>(c);
      return true;
    }
    case EventKind::SemInit:
    case EventKind::SemPost:
    case EventKind::SemWait:
      e.obj = t_.table(NameSpace::Sem).intern(ops[0]);
      if (e.kind == EventKind::SemInit && ops.size() == 2) {
        auto r = value(ops[1], &e.value);
        if (!r)
          return r;
        if (e.value < 0)
          return fail("'seminit' value must not be negative");
      }
      return true;
    case EventKind::Alloc:
    case EventKind::Free: {
      e.obj = loc.intern(ops[0]);
      if (ops.size() == 2) {
        int64_t sz;
        if (!parseInt(ops[1], &sz) || sz < 0 || sz > UINT32_MAX)
          return fail("'" + op + "' size must be a non-negative integer");
        e.aux = static_cast<uint32_t>(sz);
      }
      return true;
    }
    case EventKind::Send:
    case EventKind::Recv: {
      e.obj = t_.table(NameSpace::Channel).intern(ops[0]);
      int64_t n;
      if (!parseInt(ops[1], &e.value) || e.value < 0 || !parseInt(ops[2], &n) ||
          n < 0 || n > UINT32_MAX)
        return fail("'" + op + "' takes `channel offset bytes` (non-negative)");
      e.aux = static_cast<uint32_t>(n);
      return true;
    }
    case EventKind::Custom: {
      e.obj = t_.table(NameSpace::Custom).intern(ops[0]);
      std::vector<SymId> args;
      for (size_t i = 1; i < ops.size(); ++i)
        args.push_back(t_.table(NameSpace::Custom).intern(ops[i]));
      e.extra = t_.addArgs(args);
      return true;
    }
    }
    RACEPREDICT_UNREACHABLE("unhandled event kind");
  }

  Trace &t_;
  std::string name_;
  size_t lineNo_ = 0;
  std::unordered_map<std::string, SrcId> srcCache_;
};

} // namespace

Expected<Trace> parseTextTrace(std::istream &in, const std::string &name,
                               std::vector<uint32_t> *lines) {
  Trace t;
  LineParser p(t, name);
  std::string line;
  size_t lineNo = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    size_t before = t.events.size();
    auto r = p.parseLine(line, lineNo);
    if (!r)
      return r.error();
    if (lines && t.events.size() > before)
      lines->push_back(static_cast<uint32_t>(lineNo));
  }
  if (in.bad())
    return Error{name + ": read error after line " + std::to_string(lineNo)};
  auto r = finishTrace(t, name);
  if (!r)
    return r.error();
  return t;
}

} // namespace racepredict::trace
