//===- property/parser.cpp - The property language (docs/properties.md) ---===//
//
// Blocks by indentation: `property NAME(params):` at column 1, indented
// statements below it. A statement starts with a keyword (forbid, start,
// atomic, description) or `STATE ->`; any other indented line continues the
// previous statement, so long patterns can be broken across lines.
//
#include "racepredict/property/parser.h"

#include "builtins.h"
#include "lexer.h"
#include "racepredict/support/file_io.h"

#include <algorithm>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

namespace racepredict::property {

using trace::EventKind;

namespace {

bool isKeyword(const Token &t) {
  return t.kind == Token::Ident &&
         (t.text == "forbid" || t.text == "start" || t.text == "atomic" ||
          t.text == "description");
}

/// The tokens of one statement (possibly several lines) and a cursor.
struct Stmt {
  std::vector<Token> toks;
  size_t pos = 0;
  const Token *peek(size_t ahead = 0) const {
    return pos + ahead < toks.size() ? &toks[pos + ahead] : nullptr;
  }
  const Token *next() { return pos < toks.size() ? &toks[pos++] : nullptr; }
  bool atEnd() const { return pos >= toks.size(); }
};

/// Names visible while parsing one pattern: the property's parameters
/// (argument identifiers that are parameters are variables, any other is a
/// literal) and the thread variables met so far.
struct Scope {
  std::vector<std::string> vars;
  std::vector<std::string> threadVars;
  bool threadsAllowed = true;
};

class Parser {
public:
  explicit Parser(std::string fileName) : file_(std::move(fileName)) {}
  Expected<std::vector<Property>> run(const std::string &text);

private:
  struct Block {
    Property prop;
    std::vector<Stmt> stmts;
  };

  Error fail(const Token *t, const std::string &msg) const {
    uint32_t line = t ? t->line : lastLine_, col = t ? t->col : 0;
    return Error{file_ + ":" + std::to_string(line) +
                 (col ? ":" + std::to_string(col) : "") + ": " + msg};
  }
  Error failAt(uint32_t line, const std::string &msg) const {
    return Error{file_ + ":" + std::to_string(line) + ": " + msg};
  }
  Expected<bool> expect(Stmt &s, const char *punct) {
    const Token *t = s.next();
    if (!t || !t->punct(punct))
      return fail(t,
                  std::string("expected '") + punct + "', got " + describe(t));
    return true;
  }
  Expected<bool> header(Stmt &s, Block &b);
  Expected<bool> finish(Block &b, std::vector<Property> &out);
  Expected<EventPattern> event(Stmt &s, Scope &sc, bool threadLabel);
  Expected<Pattern> forbid(Stmt &s, const Property &p);
  Expected<std::vector<EventPattern>> gap(Stmt &s, Scope &sc, bool *untilEnd);

  std::string file_;
  uint32_t lastLine_ = 0;
  std::set<std::string> names_;
};

Expected<EventPattern> Parser::event(Stmt &s, Scope &sc, bool threadLabel) {
  EventPattern p;
  const Token *t = s.peek();
  if (t && t->kind == Token::Ident && s.peek(1) && s.peek(1)->punct(":")) {
    if (!threadLabel || !sc.threadsAllowed)
      return fail(t, "thread labels ('" + t->text + ":') are not allowed here");
    auto &tv = sc.threadVars;
    auto it = std::find(tv.begin(), tv.end(), t->text);
    p.thread = static_cast<uint32_t>(it - tv.begin());
    if (it == tv.end())
      tv.push_back(t->text);
    s.pos += 2;
    t = s.peek();
  }
  if (!t)
    return fail(t, "expected an event, got end of statement");
  p.line = t->line;
  if (t->punct("*")) {
    s.next();
    p.cls = EventPattern::Any;
    p.name = "*";
    if (s.peek() && s.peek()->punct("("))
      return fail(s.peek(), "'*' matches any event and takes no arguments");
    return p;
  }
  if (t->punct("@")) {
    s.next();
    const Token *n = s.next();
    if (!n || n->kind != Token::Ident)
      return fail(n, "expected an event kind after '@', got " + describe(n));
    const std::vector<EventKind> *kinds = builtinKinds(n->text);
    if (!kinds)
      return fail(n, "unknown event kind '@" + n->text + "'");
    p.cls = EventPattern::Builtin;
    p.name = n->text;
    p.kinds = *kinds;
  } else if (t->kind == Token::Ident) {
    s.next();
    p.cls = EventPattern::Custom;
    p.name = t->text;
  } else {
    return fail(t, "expected an event, got " + describe(t));
  }
  if (!s.peek() || !s.peek()->punct("("))
    return p;
  const Token *open = s.next();
  if (s.peek() && s.peek()->punct(")")) {
    s.next();
    return p;
  }
  for (;;) {
    const Token *a = s.next();
    Arg arg;
    if (!a || (a->kind != Token::Ident && a->kind != Token::Number &&
               a->kind != Token::String))
      return fail(a, "expected an argument, got " + describe(a));
    arg.text = a->text;
    if (a->kind == Token::Ident && a->text == "_") {
      arg.kind = Arg::Wildcard;
    } else if (a->kind == Token::Ident &&
               std::find(sc.vars.begin(), sc.vars.end(), a->text) !=
                   sc.vars.end()) {
      arg.kind = Arg::Var;
      arg.var = static_cast<uint32_t>(
          std::find(sc.vars.begin(), sc.vars.end(), a->text) - sc.vars.begin());
    } else {
      arg.kind = Arg::Literal;
    }
    p.args.push_back(arg);
    const Token *sep = s.next();
    if (sep && sep->punct(")"))
      break;
    if (!sep || !sep->punct(","))
      return fail(sep, "expected ',' or ')' in the arguments of '" + p.name +
                           "', got " + describe(sep));
  }
  if (p.cls == EventPattern::Builtin) {
    bool objectless = p.name == "begin" || p.name == "end" || p.name == "br";
    if (p.args.size() > (objectless ? 0u : 1u))
      return fail(open, "'@" + p.name + "' takes " +
                            (objectless ? "no argument" : "one argument") +
                            " (its object)");
  }
  return p;
}

Expected<std::vector<EventPattern>> Parser::gap(Stmt &s, Scope &sc,
                                                bool *untilEnd) {
  s.next(); // '['
  const Token *no = s.next();
  if (!no || !no->ident("no"))
    return fail(no, "expected 'no' after '[', got " + describe(no));
  std::vector<EventPattern> items;
  *untilEnd = false;
  for (;;) {
    auto e = event(s, sc, true);
    if (!e)
      return e.error();
    items.push_back(*e);
    const Token *t = s.next();
    if (t && t->punct(","))
      continue;
    if (t && t->ident("until")) {
      const Token *end = s.next();
      if (!end || !end->ident("end"))
        return fail(end, "expected 'end' after 'until', got " + describe(end));
      *untilEnd = true;
      t = s.next();
    }
    if (t && t->punct("]"))
      return items;
    return fail(t, "expected ',', 'until end' or ']' in a gap, got " +
                       describe(t));
  }
}

Expected<Pattern> Parser::forbid(Stmt &s, const Property &prop) {
  Scope sc;
  sc.vars = prop.params;
  Pattern p;
  std::vector<EventPattern> persistent; // `until end` items so far
  uint32_t line = s.toks[0].line;
  s.next(); // 'forbid'
  for (;;) {
    std::vector<EventPattern> g = persistent;
    while (s.peek() && s.peek()->punct("[")) {
      bool untilEnd = false;
      auto items = gap(s, sc, &untilEnd);
      if (!items)
        return items.error();
      g.insert(g.end(), items->begin(), items->end());
      if (untilEnd)
        persistent.insert(persistent.end(), items->begin(), items->end());
    }
    auto step = event(s, sc, true);
    if (!step)
      return step.error();
    p.steps.push_back(*step);
    p.gaps.push_back(std::move(g));
    const Token *t = s.next();
    if (!t)
      break;
    if (!t->punct(";"))
      return fail(t,
                  "expected ';' or the end of the pattern, got " + describe(t));
  }
  // A thread variable only a gap mentions would quantify over "some other
  // thread" implicitly; make the user say which step binds it.
  std::vector<char> bound(sc.threadVars.size(), 0);
  for (const EventPattern &e : p.steps)
    if (e.thread != kNone)
      bound[e.thread] = 1;
  for (const auto &g : p.gaps)
    for (const EventPattern &e : g)
      if (e.thread != kNone && !bound[e.thread])
        return failAt(e.line, "thread variable '" + sc.threadVars[e.thread] +
                                  "' is used in a gap but bound by no step");
  p.vars = sc.vars;
  p.threadVars = sc.threadVars;
  p.origin = "forbid (line " + std::to_string(line) + ")";
  return p;
}

Expected<bool> Parser::header(Stmt &s, Block &b) {
  s.next(); // 'property'
  const Token *n = s.next();
  if (!n || n->kind != Token::Ident)
    return fail(n, "expected a property name, got " + describe(n));
  if (!names_.insert(n->text).second)
    return fail(n, "property '" + n->text + "' is defined twice");
  b.prop.name = n->text;
  b.prop.file = file_;
  b.prop.line = n->line;
  if (s.peek() && s.peek()->punct("(")) {
    s.next();
    while (s.peek() && !s.peek()->punct(")")) {
      const Token *p = s.next();
      if (p->kind != Token::Ident || p->text == "_")
        return fail(p, "expected a parameter name, got " + describe(p));
      if (std::count(b.prop.params.begin(), b.prop.params.end(), p->text))
        return fail(p, "parameter '" + p->text + "' is declared twice");
      b.prop.params.push_back(p->text);
      if (s.peek() && s.peek()->punct(","))
        s.next();
      else if (!s.peek() || !s.peek()->punct(")"))
        return fail(s.peek(), "expected ',' or ')' after a parameter, got " +
                                  describe(s.peek()));
    }
    auto r = expect(s, ")");
    if (!r)
      return r;
  }
  if (s.peek() && s.peek()->punct(":"))
    s.next();
  if (!s.atEnd())
    return fail(s.peek(), "unexpected " + describe(s.peek()) +
                              " after the property header");
  return true;
}

Expected<bool> Parser::finish(Block &b, std::vector<Property> &out) {
  Property &p = b.prop;
  TypestateDecl ts;
  ts.vars = p.params;
  std::vector<Pattern> forbids;
  std::optional<AtomicDecl> atomic;
  std::set<std::string> kinds;
  for (Stmt &s : b.stmts) {
    const Token &first = s.toks[0];
    lastLine_ = s.toks.back().line;
    if (first.ident("description")) {
      s.next();
      const Token *t = s.next();
      if (!t || t->kind != Token::String || !s.atEnd())
        return fail(t, "expected one string after 'description'");
      p.description = t->text;
    } else if (first.ident("forbid")) {
      kinds.insert("forbid");
      auto pat = forbid(s, p);
      if (!pat)
        return pat.error();
      forbids.push_back(std::move(*pat));
    } else if (first.ident("start")) {
      kinds.insert("typestate");
      s.next();
      const Token *t = s.next();
      if (!t || t->kind != Token::Ident || !s.atEnd())
        return fail(t, "expected one state name after 'start'");
      if (!ts.start.empty())
        return fail(&first, "a typestate has one start state");
      ts.start = t->text;
    } else if (first.ident("atomic")) {
      kinds.insert("atomic");
      if (atomic)
        return fail(&first, "a property has at most one 'atomic' region");
      s.next();
      Scope sc;
      sc.vars = p.params;
      sc.threadsAllowed = false;
      auto begin = event(s, sc, false);
      if (!begin)
        return begin.error();
      const Token *dd = s.next();
      if (!dd || dd->kind != Token::DotDot)
        return fail(dd, "expected '..' between the region's begin and end "
                        "events, got " +
                            describe(dd));
      auto end = event(s, sc, false);
      if (!end)
        return end.error();
      if (!s.atEnd())
        return fail(s.peek(), "unexpected " + describe(s.peek()) +
                                  " after the region's end event");
      atomic = AtomicDecl{*begin, *end, p.params};
    } else {
      kinds.insert("typestate");
      Transition tr;
      tr.from = s.next()->text;
      tr.line = first.line;
      s.next(); // '->'
      const Token *to = s.next();
      if (!to || to->kind != Token::Ident)
        return fail(to,
                    "expected a target state after '->', got " + describe(to));
      tr.to = to->text;
      const Token *on = s.next();
      if (!on || !on->ident("on"))
        return fail(on, "expected 'on' after the target state, got " +
                            describe(on));
      Scope sc;
      sc.vars = p.params;
      sc.threadsAllowed = false;
      for (;;) {
        auto e = event(s, sc, false);
        if (!e)
          return e.error();
        tr.label = *e;
        ts.transitions.push_back(tr);
        const Token *t = s.next();
        if (!t)
          break;
        if (!t->punct(","))
          return fail(t, "expected ',' or the end of the transition, got " +
                             describe(t));
      }
    }
  }
  if (kinds.size() > 1)
    return failAt(p.line, "property '" + p.name +
                              "' mixes forms; use one of forbid, a typestate "
                              "(start/->) or atomic per property");
  if (kinds.empty())
    return failAt(p.line, "property '" + p.name + "' has no statement");
  if (kinds.count("forbid")) {
    p.kind = Property::Forbid;
    p.patterns = std::move(forbids);
  } else if (kinds.count("atomic")) {
    p.kind = Property::Atomicity;
    p.patterns = compileAtomicity(*atomic);
  } else {
    p.kind = Property::Typestate;
    if (ts.start.empty())
      return failAt(p.line, "typestate '" + p.name + "' has no 'start' state");
    auto pats = compileTypestate(ts, file_ + ":" + std::to_string(p.line) +
                                         ": typestate '" + p.name + "'");
    if (!pats)
      return pats.error();
    p.patterns = std::move(*pats);
  }
  out.push_back(std::move(p));
  return true;
}

Expected<std::vector<Property>> Parser::run(const std::string &text) {
  std::vector<Property> out;
  std::vector<Block> blocks;
  std::istringstream in(text);
  std::string line;
  uint32_t lineNo = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    auto toks = lexLine(line, lineNo, file_);
    if (!toks)
      return toks.error();
    if (toks->empty())
      continue;
    bool indented = line[0] == ' ' || line[0] == '\t';
    Token &first = (*toks)[0];
    if (!indented) {
      if (!first.ident("property"))
        return fail(&first, "expected 'property NAME' at the start of a "
                            "block, got " +
                                describe(&first));
      blocks.emplace_back();
      Stmt h{std::move(*toks)};
      lastLine_ = lineNo;
      auto r = header(h, blocks.back());
      if (!r)
        return r.error();
      continue;
    }
    if (blocks.empty())
      return fail(&first, "an indented statement before any 'property'");
    auto &stmts = blocks.back().stmts;
    bool starts =
        isKeyword(first) || (first.kind == Token::Ident && toks->size() > 1 &&
                             (*toks)[1].kind == Token::Arrow);
    if (starts) {
      stmts.push_back(Stmt{std::move(*toks)});
    } else if (stmts.empty()) {
      return fail(&first, "expected forbid, start, STATE -> STATE, atomic or "
                          "description, got " +
                              describe(&first));
    } else {
      auto &prev = stmts.back().toks;
      prev.insert(prev.end(), toks->begin(), toks->end());
    }
  }
  for (Block &b : blocks) {
    auto r = finish(b, out);
    if (!r)
      return r.error();
  }
  return out;
}

} // namespace

Expected<std::vector<Property>> parseProperties(const std::string &text,
                                                const std::string &fileName) {
  return Parser(fileName).run(text);
}

Expected<std::vector<Property>> parsePropertyFile(const std::string &path) {
  auto opened = openInput(path, "property file");
  if (!opened)
    return opened.error();
  std::ifstream &in = *opened;
  std::stringstream ss;
  ss << in.rdbuf();
  return parseProperties(ss.str(), path);
}

} // namespace racepredict::property
