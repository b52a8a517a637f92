//===- trace_fixture.h - A text trace and its index, for analysis tests ---===//
#pragma once

#include "racepredict/analysis/trace_index.h"
#include "racepredict/trace/text_format.h"

#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>

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

} // namespace racepredict::testsupport
