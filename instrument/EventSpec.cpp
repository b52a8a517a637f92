//===- instrument/EventSpec.cpp - Parsing the instrumentation spec --------===//
#include "EventSpec.h"

#include <cctype>
#include <fstream>
#include <sstream>

namespace racepredict {

namespace {

bool identStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool identChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
         c == '$';
}

/// A cursor over one line.
struct Cursor {
  const std::string &s;
  size_t i = 0;
  void skipSpace() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
      ++i;
  }
  bool eat(char c) {
    skipSpace();
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  std::string word() {
    skipSpace();
    size_t b = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t' && s[i] != '\r' &&
           s[i] != '(' && s[i] != ')' && s[i] != ',')
      ++i;
    return s.substr(b, i - b);
  }
  bool atEnd() {
    skipSpace();
    return i >= s.size();
  }
};

/// Strips a comment: `#` at the start of the line or after a blank and
/// followed by a blank (so that `#0`, `#return` stay arguments).
std::string stripComment(const std::string &line) {
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] != '#')
      continue;
    bool startOk = i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t';
    bool first = line.find_first_not_of(" \t") == i;
    bool endOk = i + 1 == line.size() || line[i + 1] == ' ' ||
                 line[i + 1] == '\t' || line[i + 1] == '#';
    if (first || (startOk && endOk))
      return line.substr(0, i);
  }
  return line;
}

bool parseArg(const std::string &text, SpecArg *a, std::string *why) {
  size_t p = 0;
  while (p < text.size() && text[p] == '*') {
    ++a->derefs;
    ++p;
  }
  std::string t = text.substr(p);
  if (t.empty()) {
    *why = "empty argument";
    return false;
  }
  if (t[0] == '#') {
    std::string k = t.substr(1);
    if (k == "return")
      a->kind = SpecArg::Return;
    else if (k == "value")
      a->kind = SpecArg::Value;
    else if (k == "address")
      a->kind = SpecArg::Address;
    else if (k == "size")
      a->kind = SpecArg::Size;
    else if (!k.empty() && k.size() <= 2 &&
             k.find_first_not_of("0123456789") == std::string::npos) {
      a->kind = SpecArg::Param;
      a->index = static_cast<unsigned>(std::stoul(k));
    } else {
      *why = "unknown argument '" + t +
             "' (expected #N, #return, #value, #address or #size)";
      return false;
    }
    return true;
  }
  a->kind = SpecArg::Literal;
  a->literal = t;
  bool ident = identStart(t[0]);
  for (char c : t)
    ident &= identChar(c);
  if (!ident && !a->isInteger()) {
    *why = "'" + t +
           "' is neither #N, #return, #value, #address, #size, "
           "an identifier nor an integer";
    return false;
  }
  if (a->derefs) {
    *why = "a literal cannot be dereferenced";
    return false;
  }
  return true;
}

} // namespace

bool SpecArg::isInteger() const {
  size_t p = !literal.empty() && literal[0] == '-' ? 1 : 0;
  if (p == literal.size())
    return false;
  if (literal.compare(p, 2, "0x") == 0 && literal.size() > p + 2)
    return literal.find_first_not_of("0123456789abcdefABCDEF", p + 2) ==
           std::string::npos;
  return literal.find_first_not_of("0123456789", p) == std::string::npos;
}

SpecParseResult parseEventSpec(const std::string &text,
                               const std::string &fileName) {
  SpecParseResult r;
  r.spec.file = fileName;
  std::istringstream in(text);
  std::string raw;
  unsigned lineNo = 0;
  auto fail = [&](const std::string &msg) {
    r.error = fileName + ":" + std::to_string(lineNo) + ": " + msg;
    return r;
  };
  while (std::getline(in, raw)) {
    ++lineNo;
    std::string line = stripComment(raw);
    Cursor c{line};
    if (c.atEnd())
      continue;
    SpecEntry e;
    e.specLine = lineNo;
    c.skipSpace();
    size_t b = c.i;
    while (c.i < line.size() && identChar(line[c.i]))
      ++c.i;
    e.event = line.substr(b, c.i - b);
    if (e.event.empty() || !identStart(e.event[0]))
      return fail("expected an event name at the start of the entry");
    if (!c.eat('('))
      return fail("expected '(' after the event name '" + e.event + "'");
    if (!c.eat(')')) {
      for (;;) {
        std::string w = c.word();
        SpecArg a;
        std::string why;
        if (!parseArg(w, &a, &why))
          return fail(why);
        e.args.push_back(a);
        if (c.eat(')'))
          break;
        if (!c.eat(','))
          return fail("expected ',' or ')' after argument '" + w + "'");
      }
    }
    if (e.args.size() > kMaxEventArgs)
      return fail("an event takes at most " + std::to_string(kMaxEventArgs) +
                  " arguments");
    std::string when = c.word();
    if (when == "before")
      e.when = SpecEntry::Before;
    else if (when == "after")
      e.when = SpecEntry::After;
    else
      return fail("expected 'before' or 'after', got '" + when + "'");
    std::string what = c.word();
    if (what == "call")
      e.target = SpecEntry::Call;
    else if (what == "body")
      e.target = SpecEntry::Body;
    else if (what == "read-global")
      e.target = SpecEntry::ReadGlobal;
    else if (what == "write-global")
      e.target = SpecEntry::WriteGlobal;
    else if (what == "line")
      e.target = SpecEntry::Line;
    else
      return fail("expected call, body, read-global, write-global or line, "
                  "got '" +
                  what + "'");
    e.symbol = c.word();
    if (e.symbol.empty())
      return fail("expected a name after '" + what + "'");
    if (e.target == SpecEntry::Line) {
      size_t colon = e.symbol.rfind(':');
      std::string num =
          colon == std::string::npos ? "" : e.symbol.substr(colon + 1);
      if (colon == 0 || num.empty() ||
          num.find_first_not_of("0123456789") != std::string::npos)
        return fail("expected FILE:LINE after 'line', got '" + e.symbol + "'");
      e.line = static_cast<unsigned>(std::stoul(num));
      e.symbol = e.symbol.substr(0, colon);
    }
    if (!c.atEnd())
      return fail("unexpected '" + c.word() + "' after the entry");
    // What each argument can mean at this kind of program point.
    bool global =
        e.target == SpecEntry::ReadGlobal || e.target == SpecEntry::WriteGlobal;
    for (const SpecArg &a : e.args) {
      if (a.kind == SpecArg::Literal)
        continue;
      if (e.target == SpecEntry::Line)
        return fail("a 'line' event takes only literal arguments");
      bool valueLike = a.kind == SpecArg::Value || a.kind == SpecArg::Address ||
                       a.kind == SpecArg::Size;
      if (valueLike && !global)
        return fail("#value, #address and #size describe global accesses "
                    "(read-global, write-global)");
      if (!valueLike && global)
        return fail("a global access has no #N or #return; use #value, "
                    "#address or #size");
      if (a.kind == SpecArg::Return && e.when == SpecEntry::Before)
        return fail("#return is only known after the call or body");
      if (a.kind == SpecArg::Value && e.target == SpecEntry::ReadGlobal &&
          e.when == SpecEntry::Before)
        return fail("the #value of a read is only known after it");
      if (a.derefs && (a.kind == SpecArg::Size))
        return fail("#size cannot be dereferenced");
    }
    r.spec.entries.push_back(std::move(e));
  }
  r.ok = true;
  return r;
}

SpecParseResult parseEventSpecFile(const std::string &path) {
  std::ifstream in(path);
  if (!in) {
    SpecParseResult r;
    r.error = "cannot open event spec '" + path + "'";
    return r;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return parseEventSpec(ss.str(), path);
}

std::string toString(const SpecEntry &e) {
  static const char *const kTargets[] = {"call", "body", "read-global",
                                         "write-global", "line"};
  std::string s = e.event + "(";
  for (size_t i = 0; i < e.args.size(); ++i) {
    const SpecArg &a = e.args[i];
    s += (i ? ", " : "") + std::string(a.derefs, '*');
    switch (a.kind) {
    case SpecArg::Param:
      s += "#" + std::to_string(a.index);
      break;
    case SpecArg::Return:
      s += "#return";
      break;
    case SpecArg::Value:
      s += "#value";
      break;
    case SpecArg::Address:
      s += "#address";
      break;
    case SpecArg::Size:
      s += "#size";
      break;
    case SpecArg::Literal:
      s += a.literal;
      break;
    }
  }
  s += std::string(") ") + (e.when == SpecEntry::Before ? "before" : "after") +
       " " + kTargets[e.target] + " " + e.symbol;
  if (e.target == SpecEntry::Line)
    s += ":" + std::to_string(e.line);
  return s;
}

} // namespace racepredict
