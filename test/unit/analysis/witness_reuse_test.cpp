//===- witness_reuse_test.cpp - One witness, every pair it exhibits -------===//
#include "racepredict/analysis/witness_reuse.h"
#include "trace_fixture.h"

#include <gtest/gtest.h>

using namespace racepredict;
using analysis::Step;

namespace {

using Fixture = testsupport::TraceFixture;

analysis::WitnessSchedule steps(std::initializer_list<uint32_t> ids) {
  std::vector<Step> s;
  for (uint32_t e : ids)
    s.push_back({e, false});
  return analysis::WitnessSchedule(std::move(s));
}

// Two threads writing x, then y. The observed order is a witness of the
// race on y (5, 6); its prefix 0 1 2 leaves both writes of x next.
const char *kTwoLocations = R"(
t0 begin
t0 fork t1
t1 begin
t1 wr x 2
t0 wr x 1
t1 wr y 2
t0 wr y 1
)";

TEST(WitnessReuse, CutsThePrefixAfterWhichBothEventsAreNext) {
  Fixture f(kTwoLocations);
  analysis::WitnessPool pool(*f.idx, 4);
  pool.add(steps({0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(pool.find(3, 4), steps({0, 1, 2, 3, 4}));
}

TEST(WitnessReuse, NoPrefixWithBothNextIsNoWitness) {
  Fixture f(kTwoLocations);
  analysis::WitnessPool pool(*f.idx, 4);
  pool.add(steps({0, 1, 2, 3, 4, 5, 6}));
  // t1 runs past 3 before t0 reaches 6.
  EXPECT_EQ(pool.find(3, 6), std::nullopt);
}

TEST(WitnessReuse, KeepsOnlyTheNewestWitnesses) {
  Fixture f(kTwoLocations);
  analysis::WitnessPool pool(*f.idx, 1);
  pool.add(steps({0, 1, 2, 3, 4, 5, 6}));
  pool.add(steps({0, 1, 4, 2, 3, 6, 5}));
  // Only the second is kept; in it, t0 passes 4 before t1 begins.
  EXPECT_EQ(pool.find(3, 4), std::nullopt);
  EXPECT_EQ(pool.find(5, 6), steps({0, 1, 4, 2, 3, 5, 6}));
}

// Without begin events a forked thread's first event is an access: it is
// next from the start, but not enabled before its fork. A cut that would
// put it next too early is no witness (witness_reuse.cpp decides this
// without a replay when the fork is in the cut, and replays otherwise).
const char *kForkFirst = R"(
t0 wr y 1
t0 fork t1
t1 wr y 2
t0 wr x 1
t1 wr x 2
)";

TEST(WitnessReuse, AForkedThreadsFirstEventNeedsTheForkInTheCut) {
  Fixture f(kForkFirst);
  analysis::WitnessPool pool(*f.idx, 4);
  pool.add(steps({0, 1, 2, 3, 4}));
  EXPECT_EQ(pool.find(0, 2), std::nullopt);
  EXPECT_EQ(pool.find(3, 4), steps({0, 1, 2, 3, 4}));
}

} // namespace
