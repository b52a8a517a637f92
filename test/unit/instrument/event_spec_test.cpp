//===- event_spec_test.cpp - Parsing the instrumentation spec -------------===//
#include "EventSpec.h"

#include <gtest/gtest.h>

using namespace racepredict;

namespace {

EventSpec parse(const std::string &text) {
  SpecParseResult r = parseEventSpec(text, "s.events");
  EXPECT_TRUE(r.ok) << r.error;
  return r.spec;
}

std::string error(const std::string &text) {
  SpecParseResult r = parseEventSpec(text, "s.events");
  EXPECT_FALSE(r.ok) << text;
  return r.error;
}

} // namespace

TEST(EventSpec, CarrilStyleEntries) {
  EventSpec s = parse("# comment\n"
                      "open(#return) after call open_file\n"
                      "close(#0)   before call close_file   # trailing\n"
                      "\n"
                      "x(load, #value) after read-global x\n"
                      "x(store, #value, #address, #size) before write-global "
                      "x\n"
                      "inc() before body increment\n"
                      "read(**#2, 42, -0x10, lit) after call f\n"
                      "mark(here) before line src/rover.c:42\n");
  ASSERT_EQ(s.entries.size(), 7u);
  std::vector<std::string> round;
  for (const SpecEntry &e : s.entries)
    round.push_back(toString(e));
  EXPECT_EQ(round,
            (std::vector<std::string>{
                "open(#return) after call open_file",
                "close(#0) before call close_file",
                "x(load, #value) after read-global x",
                "x(store, #value, #address, #size) before write-global x",
                "inc() before body increment",
                "read(**#2, 42, -0x10, lit) after call f",
                "mark(here) before line src/rover.c:42"}));
  const SpecEntry &r = s.entries[5];
  EXPECT_EQ(r.specLine, 8u);
  EXPECT_EQ(r.args[0].kind, SpecArg::Param);
  EXPECT_EQ(r.args[0].index, 2u);
  EXPECT_EQ(r.args[0].derefs, 2u);
  EXPECT_TRUE(r.args[1].isInteger());
  EXPECT_TRUE(r.args[2].isInteger());
  EXPECT_FALSE(r.args[3].isInteger());
  EXPECT_EQ(s.entries[6].symbol, "src/rover.c");
  EXPECT_EQ(s.entries[6].line, 42u);
}

TEST(EventSpec, ErrorsNameFileAndLine) {
  EXPECT_EQ(error("\nopen(#return) after calll f\n"),
            "s.events:2: expected call, body, read-global, write-global or "
            "line, got 'calll'");
  EXPECT_EQ(error("open(#return) before call f\n"),
            "s.events:1: #return is only known after the call or body");
  EXPECT_EQ(error("x(#value) before read-global x\n"),
            "s.events:1: the #value of a read is only known after it");
  EXPECT_EQ(error("x(#0) after read-global x\n"),
            "s.events:1: a global access has no #N or #return; use #value, "
            "#address or #size");
  EXPECT_EQ(error("x(#size) after call f\n"),
            "s.events:1: #value, #address and #size describe global "
            "accesses (read-global, write-global)");
  EXPECT_EQ(error("m(#0) before line a.c:3\n"),
            "s.events:1: a 'line' event takes only literal arguments");
  EXPECT_EQ(error("m() before line a.c\n"),
            "s.events:1: expected FILE:LINE after 'line', got 'a.c'");
  EXPECT_EQ(error("e(#bogus) after call f\n"),
            "s.events:1: unknown argument '#bogus' (expected #N, #return, "
            "#value, #address or #size)");
  EXPECT_EQ(error("e(*lit) after call f\n"),
            "s.events:1: a literal cannot be dereferenced");
  EXPECT_EQ(error("e(a, b, c, d, e) after call f\n"),
            "s.events:1: an event takes at most 4 arguments");
  EXPECT_EQ(error("e #0 after call f\n"),
            "s.events:1: expected '(' after the event name 'e'");
  EXPECT_EQ(error("e() after call f extra\n"),
            "s.events:1: unexpected 'extra' after the entry");
  EXPECT_EQ(error("e() whenever call f\n"),
            "s.events:1: expected 'before' or 'after', got 'whenever'");
  EXPECT_EQ(error("e(a b) after call f\n"),
            "s.events:1: expected ',' or ')' after argument 'a'");
  EXPECT_EQ(parseEventSpecFile("/no/such.events").error,
            "cannot open event spec '/no/such.events'");
}
