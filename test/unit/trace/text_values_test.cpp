//===- text_values_test.cpp - Numbers of the text format, at their limits -===//
//
// Reproducers of what fuzz_text_reader found (issue 21): -2^63 was negated
// out of range (undefined behaviour), decimal values beyond int64 and
// source lines beyond 2^32 wrapped around silently.
//
#include "trace_test_util.h"

namespace racepredict::trace::test {
namespace {

Expected<Trace> parse(const std::string &text) {
  std::istringstream in(text);
  return parseTextTrace(in, "v.rpt.txt");
}

} // namespace

TEST(TextValues, TheWholeInt64RangeReadsAndRoundTrips) {
  auto t = parse("t1 wr x -9223372036854775808\n"
                 "t1 wr x 9223372036854775807\n"
                 "t1 wr x 0xffffffffffffffff\n");
  ASSERT_TRUE(static_cast<bool>(t)) << t.error().message;
  EXPECT_EQ(t->events[0].value, INT64_MIN);
  EXPECT_EQ(t->events[1].value, INT64_MAX);
  EXPECT_EQ(t->events[2].value, -1); // hex is the bit pattern
  std::ostringstream out;
  writeTextTrace(*t, out);
  EXPECT_EQ(out.str(), "t1 wr x -9223372036854775808\n"
                       "t1 wr x 9223372036854775807\n"
                       "t1 wr x -1\n");
}

TEST(TextValues, OutOfRangeNumbersAreErrorsWithTheirLine) {
  for (const char *v : {"9223372036854775808", "-9223372036854775809",
                        "18446744073709551616"}) {
    auto t = parse("t1 begin\nt1 wr x " + std::string(v) + "\n");
    ASSERT_FALSE(static_cast<bool>(t)) << v;
    EXPECT_EQ(t.error().message,
              "v.rpt.txt:2: expected an integer value, got '" + std::string(v) +
                  "'");
  }
  auto line = parse("t1 wr x 1 @a.c:4294967296\n");
  ASSERT_FALSE(static_cast<bool>(line));
  EXPECT_EQ(line.error().message,
            "v.rpt.txt:1: malformed source location '@a.c:4294967296' "
            "(expected @file:line[:col][@function])");
}

} // namespace racepredict::trace::test
