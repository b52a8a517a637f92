//===- report_test_util.h - Findings from small text traces ---------------===//
#pragma once

#include "racepredict/report/finding.h"
#include "racepredict/trace/text_format.h"

#include <gtest/gtest.h>

#include <sstream>

namespace racepredict::testutil {

/// Parses a text trace (fails the test on a parse error).
inline trace::Trace parse(const std::string &text) {
  std::istringstream in(text);
  auto t = trace::parseTextTrace(in, "test.rpt.txt");
  EXPECT_TRUE(static_cast<bool>(t)) << (t ? "" : t.error().message);
  return t ? std::move(*t) : trace::Trace();
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
