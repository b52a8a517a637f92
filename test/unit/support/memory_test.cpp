//===- test/unit/support/memory_test.cpp - Memory limits, said early ------===//
#include "racepredict/support/memory.h"

#include <gtest/gtest.h>

using namespace racepredict;

TEST(Memory, ShortfallSaysWhatIsNeededAndWhatIsAllowed) {
  constexpr uint64_t MB = uint64_t{1} << 20, GB = uint64_t{1} << 30;
  EXPECT_FALSE(memoryShortfall(100 * MB, 50 * MB, std::nullopt));
  EXPECT_FALSE(memoryShortfall(100 * MB, 50 * MB, 150 * MB));
  auto why = memoryShortfall(3 * GB, 200 * MB, 2 * GB);
  ASSERT_TRUE(why);
  EXPECT_EQ(*why, "it takes about 3.0 GB on top of the 200 MB in use, and "
                  "the limit is 2.0 GB");
}

TEST(Memory, TheLimitOfThisProcessIsKnown) {
  // At least the machine's memory is always readable on Linux.
  auto limit = memoryLimitBytes();
  ASSERT_TRUE(limit);
  EXPECT_GT(*limit, peakResidentBytes());
}
