//===- parser_test.cpp - The property language and its compilers ----------===//
#include "racepredict/property/parser.h"

#include <gtest/gtest.h>

using namespace racepredict::property;

namespace {

std::vector<Property> parse(const std::string &text) {
  auto r = parseProperties(text, "p.props");
  EXPECT_TRUE(static_cast<bool>(r)) << (r ? "" : r.error().message);
  return r ? *r : std::vector<Property>{};
}

std::string error(const std::string &text) {
  auto r = parseProperties(text, "p.props");
  EXPECT_FALSE(static_cast<bool>(r)) << "parsed: " << text;
  return r ? "" : r.error().message;
}

std::vector<std::string> patterns(const Property &p) {
  std::vector<std::string> out;
  for (const auto &pat : p.patterns)
    out.push_back(toString(pat));
  return out;
}

} // namespace

TEST(PropertyParser, ForbidWithGapsThreadsAndContinuation) {
  auto ps = parse(R"(# comment
property deadlock(a, b):
    description "lock order"
    forbid t1: locked(a); [no t1: unlocked(a) until end]
           t2: locked(b); [no t2: unlocked(b) until end] t1: want(b);
           t2: want(a)   # continued over three lines
property use_after_close(f)
    forbid close(f); [no open(f)] read(f, _, 3)
)");
  ASSERT_EQ(ps.size(), 2u);
  EXPECT_EQ(ps[0].name, "deadlock");
  EXPECT_EQ(ps[0].kind, Property::Forbid);
  EXPECT_EQ(ps[0].description, "lock order");
  EXPECT_EQ(ps[0].params, (std::vector<std::string>{"a", "b"}));
  // `until end` items apply to every later gap.
  EXPECT_EQ(patterns(ps[0]),
            std::vector<std::string>{
                "t1: locked(a); [no t1: unlocked(a)] t2: locked(b); [no t1: "
                "unlocked(a), t2: unlocked(b)] t1: want(b); [no t1: "
                "unlocked(a), t2: unlocked(b)] t2: want(a)"});
  EXPECT_EQ(ps[0].patterns[0].threadVars,
            (std::vector<std::string>{"t1", "t2"}));
  EXPECT_EQ(ps[0].patterns[0].origin, "forbid (line 4)");
  const Pattern &p = ps[1].patterns[0];
  EXPECT_EQ(toString(p), "close(f); [no open(f)] read(f, _, 3)");
  ASSERT_EQ(p.steps[1].args.size(), 3u);
  EXPECT_EQ(p.steps[1].args[0].kind, Arg::Var);
  EXPECT_EQ(p.steps[1].args[1].kind, Arg::Wildcard);
  EXPECT_EQ(p.steps[1].args[2].kind, Arg::Literal);
}

TEST(PropertyParser, LiteralsAreIdentifiersThatAreNotParameters) {
  auto ps = parse("property race(v):\n"
                  "    forbid t1: x(store, v); [no t1: *] t2: x(load)\n"
                  "    forbid @acq(m); [no @rel(m)] @write(\"y\")\n");
  const Pattern &p = ps[0].patterns[0];
  EXPECT_EQ(p.steps[0].args[0].kind, Arg::Literal);
  EXPECT_EQ(p.steps[0].args[0].text, "store");
  EXPECT_EQ(p.steps[0].args[1].kind, Arg::Var);
  EXPECT_EQ(p.gaps[1][0].cls, EventPattern::Any);
  const Pattern &q = ps[0].patterns[1];
  EXPECT_EQ(q.steps[0].cls, EventPattern::Builtin);
  EXPECT_EQ(q.steps[1].kinds.size(), 3u); // wr, awr, armw
  EXPECT_EQ(toString(q), "@acq(m); [no @rel(m)] @write(y)");
}

TEST(PropertyParser, TypestateCompilesToLastSetterPatterns) {
  auto ps = parse(R"(
property file(f):
    start closed
    closed -> opened on open(f)
    opened -> opened on read(f), write(f)
    opened -> closed on close(f)
)");
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_EQ(ps[0].kind, Property::Typestate);
  // Setters: open (-> opened), close (-> closed); read/write observe.
  std::vector<std::string> origins;
  for (const auto &p : ps[0].patterns)
    origins.push_back(p.origin + " = " + toString(p));
  EXPECT_EQ(origins,
            (std::vector<std::string>{
                "typestate: read(f) in start state closed = [no open(f), "
                "close(f)] read(f)",
                "typestate: read(f) in state closed (after close(f)) = "
                "close(f); [no open(f), close(f)] read(f)",
                "typestate: write(f) in start state closed = [no open(f), "
                "close(f)] write(f)",
                "typestate: write(f) in state closed (after close(f)) = "
                "close(f); [no open(f), close(f)] write(f)",
                "typestate: close(f) in start state closed = [no open(f), "
                "close(f)] close(f)",
                "typestate: close(f) in state closed (after close(f)) = "
                "close(f); [no open(f), close(f)] close(f)",
                "typestate: open(f) in state opened (after open(f)) = "
                "open(f); [no open(f), close(f)] open(f)"}));
}

TEST(PropertyParser, AtomicityCompilesToTheFiveUnserializablePatterns) {
  auto ps = parse("property inc:\n    atomic inc_begin() .. inc_end()\n");
  ASSERT_EQ(ps[0].patterns.size(), 5u);
  EXPECT_EQ(ps[0].kind, Property::Atomicity);
  EXPECT_EQ(toString(ps[0].patterns[0]),
            "t: inc_begin; [no t: inc_end] t: @read($loc); [no t: inc_end, "
            "t: @access($loc)] u: @write($loc); [no t: inc_end, t: "
            "@access($loc)] t: @read($loc)");
  std::vector<std::string> origins;
  for (const auto &p : ps[0].patterns)
    origins.push_back(p.origin);
  EXPECT_EQ(origins,
            (std::vector<std::string>{"atomicity R-W-R", "atomicity W-W-R",
                                      "atomicity R-W-W", "atomicity W-R-W",
                                      "atomicity W-W-W"}));
}

TEST(PropertyParser, ErrorsNameFileLineAndColumn) {
  EXPECT_EQ(error("property p:\n    forbid @foo(x)\n"),
            "p.props:2:13: unknown event kind '@foo'");
  EXPECT_EQ(error("property p:\n    forbid a; [nope b] c\n"),
            "p.props:2:16: expected 'no' after '[', got 'nope'");
  EXPECT_EQ(error("property p:\n    forbid a(x y)\n"),
            "p.props:2:16: expected ',' or ')' in the arguments of 'a', got "
            "'y'");
  EXPECT_EQ(error("property p:\n    forbid [no t3: a] b\n"),
            "p.props:2: thread variable 't3' is used in a gap but bound by "
            "no step");
  EXPECT_EQ(error("  forbid a\n"),
            "p.props:1:3: an indented statement before any 'property'");
  EXPECT_EQ(error("forbid a\n"), "p.props:1:1: expected 'property NAME' at "
                                 "the start of a block, got 'forbid'");
  EXPECT_EQ(error("property p:\n    forbid a\nproperty p:\n    forbid b\n"),
            "p.props:3:10: property 'p' is defined twice");
  EXPECT_EQ(error("property p:\n    forbid a\n    atomic b .. c\n"),
            "p.props:1: property 'p' mixes forms; use one of forbid, a "
            "typestate (start/->) or atomic per property");
  EXPECT_EQ(error("property p:\n"), "p.props:1: property 'p' has no statement");
  EXPECT_EQ(error("property p:\n    forbid a(\"x)\n"),
            "p.props:2:14: unterminated string");
  EXPECT_EQ(error("property p:\n    forbid @begin(x)\n"),
            "p.props:2:18: '@begin' takes no argument (its object)");
  EXPECT_EQ(error("property p:\n    atomic t: a .. b\n"),
            "p.props:2:12: thread labels ('t:') are not allowed here");
}

TEST(PropertyParser, UnsupportedTypestatesAreRejected) {
  EXPECT_EQ(error("property s(f):\n    start a\n    a -> b on x(f)\n"
                  "    b -> c on x(f)\n"),
            "p.props:1: typestate 's': x(f) leads to different states (b, "
            "c); only typestates whose every event either keeps the state "
            "or always leads to the same state are supported");
  EXPECT_EQ(error("property s(f):\n    start a\n    a -> b on x(f)\n"
                  "    a -> c on x(f)\n"),
            "p.props:1: typestate 's': line 4: x(f) in state a leads to both "
            "b and c");
  EXPECT_EQ(error("property s(f):\n    start a\n    a -> b on x(f)\n"
                  "    b -> a on x(_)\n"),
            "p.props:1: typestate 's': events x(f) and x(_) can match the "
            "same event; give them distinct names or literal arguments");
  EXPECT_EQ(error("property s(f):\n    a -> b on x(f)\n"),
            "p.props:1: typestate 's' has no 'start' state");
}

TEST(PropertyParser, MissingFile) {
  auto r = parsePropertyFile("/no/such/file.props");
  ASSERT_FALSE(static_cast<bool>(r));
  EXPECT_EQ(r.error().message,
            "cannot open property file '/no/such/file.props': No such file "
            "or directory");
}
