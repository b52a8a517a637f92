//===- trace_fixture.h - A text trace and its index, for analysis tests ---===//
#pragma once

#include "racepredict/analysis/schedule_checker.h"
#include "racepredict/analysis/trace_index.h"
#include "racepredict/trace/text_format.h"

#include <gtest/gtest.h>

#include <memory>
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

} // namespace racepredict::testsupport
