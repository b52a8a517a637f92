//===- greedy_witness_test.cpp - Value-keeping greedy race schedules ------===//
//
// analysis/greedy_witness.h on a trace whose race needs a read to take
// another write of its value than the observed one, at a moment the
// observed order never has: the closure fast path cannot build it, the
// greedy schedule that runs a's and b's threads first can; and on one where
// both step orders get stuck until a write that overwrote a read's value is
// held back (the repair of a stuck run); and on one where a read after its
// thread's last branch must see another value. Every witness
// it returns passes the schedule checker and ends with the racing pair.
//
#include "racepredict/analysis/closure_witness.h"
#include "racepredict/analysis/greedy_witness.h"
#include "racepredict/analysis/mhb.h"
#include "trace_fixture.h"

#include <gtest/gtest.h>

using namespace racepredict;

namespace {

using Fixture = testsupport::TraceFixture;

/// The closure cannot show the race (a, b); the greedy schedule shows it
/// with exactly the steps `want`, and the schedule checker accepts them.
void expectOnlyGreedyWitness(const char *text, uint32_t a, uint32_t b,
                             const std::vector<uint32_t> &want) {
  Fixture f(text);
  EXPECT_FALSE(analysis::ClosureWitnessFinder(*f.idx).find(a, b));
  analysis::MustHappenBefore mhb(*f.idx);
  analysis::Slicer slicer(*f.idx, mhb);
  analysis::PairSlice slice;
  ASSERT_TRUE(slicer.slice(a, b, &slice));
  testsupport::expectRaceWitness(
      f, analysis::findGreedyWitness(*f.idx, slice, a, b), a, b, want);
}

// The race (7, 13) on y: t1 reads x = 1 (observed from t0's write after
// a, event 8) and then z = 1, which t2 writes after resetting x to 0. A
// witness must run t1's read of x between t2's two writes of x, i.e. before
// t2's events that the observed order puts first.
const std::string kUpToTheBranch = R"(
t0 begin
t0 fork t1
t0 fork t2
t2 begin
t2 wr x 1
t2 wr x 0
t2 wr z 1
t0 wr y 1
t0 wr x 1
t1 begin
t1 rd x 1
t1 rd z 1
t1 br
)";
const std::string kReadBetweenTwoWrites = kUpToTheBranch + "t1 wr y 2\n";

TEST(GreedyWitness, RunsAReadWhileAnEarlierWriteOfItsValueIsLast) {
  expectOnlyGreedyWitness(kReadBetweenTwoWrites.c_str(), 7, 13,
                          {0, 1, 2, 9, 3, 4, 10, 5, 6, 11, 12, 7, 13});
}

// The race (10, 17) on y: t1 reads z = 1, x = 1 and u = 1. Its read of x
// was observed from t0's write after a (event 11), so it must take t2's
// earlier x = 1 (event 5) instead; but t3 resets x (event 7) before it
// sets u, which t1 reads after x. Both step orders, and the closure, run
// event 7 before t1 can read z and get stuck at t1's read of x. The repair
// holds event 7 back until that read has run, and the next run of the
// observed order settles the pair.
const char *kResetBeforeTheReader = R"(
t0 begin
t0 fork t1
t0 fork t2
t0 fork t3
t2 begin
t2 wr x 1
t3 begin
t3 wr x 0
t2 wr z 1
t3 wr u 1
t0 wr y 1
t0 wr x 1
t1 begin
t1 rd z 1
t1 rd x 1
t1 rd u 1
t1 br
t1 wr y 2
)";

TEST(GreedyWitness, HoldsBackAWriteThatOverwroteAStuckReadsValue) {
  expectOnlyGreedyWitness(
      kResetBeforeTheReader, 10, 17,
      {0, 1, 2, 3, 4, 5, 6, 8, 12, 13, 14, 7, 9, 15, 16, 10, 17});
}

// kReadBetweenTwoWrites, and after its branch t1 reads y = 1, which only
// a writes: no value-keeping order reaches b. That read sees 0 and is
// allowed to: no branch or feeding write of t1 follows it, so it does not
// matter (PairSlice::matters), and σ·a·b passes the checker with it.
const std::string kReadAfterTheLastBranch =
    kUpToTheBranch + "t1 rd y 1\nt1 wr y 2\n";

TEST(GreedyWitness, AReadThatDoesNotMatterMaySeeAnotherValue) {
  expectOnlyGreedyWitness(kReadAfterTheLastBranch.c_str(), 7, 14,
                          {0, 1, 2, 9, 3, 4, 10, 5, 6, 11, 12, 13, 7, 14});
}

} // namespace
