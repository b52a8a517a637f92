//===- report_test_util.h - Findings from small text traces ---------------===//
#pragma once

#include "racepredict/report/finding.h"
#include "racepredict/trace/text_format.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace racepredict::testutil {

/// Parses a text trace (fails the test on a parse error).
inline trace::Trace parse(const std::string &text) {
  std::istringstream in(text);
  auto t = trace::parseTextTrace(in, "test.rpt.txt");
  EXPECT_TRUE(static_cast<bool>(t)) << (t ? "" : t.error().message);
  return t ? std::move(*t) : trace::Trace();
}

/// t1 writes y `n` times in a loop (l.c:7), then x (l.c:9), which t2 reads
/// (l.c:20): one race, whose witness runs the whole loop first (a witness
/// long enough to be folded or cut in a report).
inline trace::Trace raceAfterLoop(size_t n) {
  std::string s = "t0 fork t1\nt0 fork t2\n";
  for (size_t i = 0; i < n; ++i)
    s += "t1 wr y " + std::to_string(i) + " @l.c:7@loop\n";
  s += "t1 wr x 1 @l.c:9@loop\nt2 rd x 1 @l.c:20@reader\n";
  return parse(s);
}

/// Two threads writing x: events 2 (t1, main, a/b/race.c:10) and 4 (t2,
/// worker, a/b/race.c:20); the witness is 0 1 3 2 4.
inline const char *kRaceTrace = R"(t1 begin
t1 fork t2
t1 wr x 1 @/src/proj/a/b/race.c:10:5@main
t2 begin
t2 wr x 2 @/src/proj/a/b/race.c:20@worker
t2 end
)";

inline report::Finding raceOf(const trace::Trace &t) {
  return report::raceFinding(t, 2, 4, {0, 1, 3, 2, 4});
}

} // namespace racepredict::testutil
