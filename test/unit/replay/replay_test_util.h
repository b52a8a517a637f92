//===- replay_test_util.h - Helpers of the replay unit tests --------------===//
#pragma once

#include "racepredict/trace/text_format.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>
#include <string>

namespace racepredict::testing {

inline trace::Trace parseTrace(const std::string &text) {
  std::istringstream in(text);
  auto t = trace::parseTextTrace(in, "test.rpt.txt");
  EXPECT_TRUE(static_cast<bool>(t)) << (t ? "" : t.error().message);
  return t ? std::move(*t) : trace::Trace{};
}

/// The runtime parser's allocator in tests (zeroed, leaked: tests are small).
inline void *testAlloc(size_t n) { return std::calloc(1, n ? n : 1); }

} // namespace racepredict::testing
