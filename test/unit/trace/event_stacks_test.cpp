//===- event_stacks_test.cpp - Stack nodes per event, stored as runs ------===//
#include "racepredict/trace/trace.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace racepredict::trace {
namespace {

void expectSame(const EventStacks &s, const std::vector<uint32_t> &ref) {
  ASSERT_EQ(s.size(), ref.size());
  EXPECT_EQ(s.empty(), ref.empty());
  size_t runs = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    ASSERT_EQ(s[static_cast<EventId>(i)], ref[i]) << "event " << i;
    runs += i == 0 || ref[i] != ref[i - 1];
  }
  EXPECT_EQ(s.runs(), runs);
}

TEST(EventStacks, EqualNeighboursShareARun) {
  EventStacks s;
  expectSame(s, {});
  for (uint32_t n : {0, 0, 3, 3, 3, 0, 7, 7})
    s.push_back(n);
  expectSame(s, {0, 0, 3, 3, 3, 0, 7, 7});
  EXPECT_EQ(s.runs(), 4u);
}

// Random pushes and resizes, in runs of random lengths over a few nodes
// (threads switching between a few call sites), against a plain vector.
TEST(EventStacks, RandomPushesAndResizesAgreeWithAPlainVector) {
  std::mt19937 rng(17);
  for (int round = 0; round < 200; ++round) {
    EventStacks s;
    std::vector<uint32_t> ref;
    int steps = 1 + static_cast<int>(rng() % 60);
    for (int k = 0; k < steps; ++k) {
      uint32_t node = rng() % 4;
      if (rng() % 8 == 0) {
        size_t n = rng() % (ref.size() + 20);
        s.resize(n, node);
        ref.resize(n, node);
        continue;
      }
      for (size_t len = 1 + rng() % 30; len > 0; --len) {
        s.push_back(node);
        ref.push_back(node);
      }
    }
    expectSame(s, ref);
    s.clear();
    expectSame(s, {});
  }
}

TEST(EventStacks, TheTraceReadsStacksThroughStackOf) {
  Trace t;
  EXPECT_EQ(t.stackOf(5), 0u); // no stacks at all
  uint32_t f = t.pushStack(0, 1), g = t.pushStack(f, 2);
  for (uint32_t n : {f, f, g, 0u})
    t.eventStacks.push_back(n);
  EXPECT_EQ(t.stackOf(1), f);
  EXPECT_EQ(t.stackOf(2), g);
  EXPECT_EQ(t.stackOf(3), 0u);
  EXPECT_EQ(t.stackOf(4), 0u); // past the stacks: none
}

} // namespace
} // namespace racepredict::trace
