//===- trace_fixture.h - A text trace and its index, for analysis tests ---===//
#pragma once

#include "racepredict/analysis/schedule_checker.h"
#include "racepredict/analysis/trace_index.h"
#include "racepredict/analysis/witness_schedule.h"
#include "racepredict/trace/text_format.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace racepredict::testsupport {

/// Parses `text` as the CLI would (the test fails on a parse error).
struct TraceFixture {
  trace::Trace t;
  std::unique_ptr<analysis::TraceIndex> idx;
  explicit TraceFixture(const std::string &text) {
    std::istringstream in(text);
    auto r = trace::parseTextTrace(in, "test.rpt.txt");
    EXPECT_TRUE(static_cast<bool>(r)) << (r ? "" : r.error().message);
    if (r)
      t = std::move(*r);
    idx = std::make_unique<analysis::TraceIndex>(t);
  }
};

/// The events of a schedule's steps, in order (a wait's release half and
/// its return both appear as the wait).
inline std::vector<uint32_t>
eventsOf(const std::vector<analysis::Step> &steps) {
  std::vector<uint32_t> out;
  for (const analysis::Step &s : steps)
    out.push_back(s.event);
  return out;
}
inline std::vector<uint32_t> eventsOf(const analysis::WitnessSchedule &w) {
  return eventsOf(w.steps());
}

/// `w` is a witness of the race (a, b) whose steps run exactly `events`
/// (the pair last) and which the schedule checker accepts.
inline void
expectRaceWitness(const TraceFixture &f,
                  const std::optional<std::vector<analysis::Step>> &w,
                  uint32_t a, uint32_t b, const std::vector<uint32_t> &events) {
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(eventsOf(*w), events);
  EXPECT_EQ(
      analysis::checkRaceWitness(*f.idx, {w->begin(), w->end() - 2}, a, b),
      std::nullopt);
}
inline void expectRaceWitness(const TraceFixture &f,
                              const std::optional<analysis::WitnessSchedule> &w,
                              uint32_t a, uint32_t b,
                              const std::vector<uint32_t> &events) {
  ASSERT_TRUE(w.has_value());
  expectRaceWitness(f, std::optional(w->steps()), a, b, events);
}

} // namespace racepredict::testsupport
