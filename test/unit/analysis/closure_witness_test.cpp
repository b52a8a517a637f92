//===- closure_witness_test.cpp - Reads-from-preserving fast witnesses ----===//
//
// The closure fast path (analysis/closure_witness.h) on traces whose
// witness needs a particular schedule shape; every witness it returns must
// pass the schedule checker and end with the racing pair.
//
#include "racepredict/analysis/closure_witness.h"
#include "trace_fixture.h"

#include <gtest/gtest.h>

using namespace racepredict;
using analysis::Step;

namespace {

using Fixture = testsupport::TraceFixture;
using testsupport::eventsOf;
using testsupport::expectRaceWitness;

// t1 writes x inside a section of m and t0 reads it (a plain branch
// follows) before taking m itself. The race on z needs t1's write but not
// its release. Leaving t1's section open, to run last, deadlocks the
// greedy schedule: t0's read waits for the write in t1's section, which
// waits for t0's section of m. Closing t1's section keeps the observed
// order.
const char *kOpenSectionFeedsRead = R"(
t0 begin
t0 fork t1
t0 fork t2
t1 begin
t1 acq m
t1 wr x 1
t2 begin
t2 wr z 2
t1 rel m
t0 rd x 1
t0 br
t0 acq m
t0 rel m
t0 wr z 1
)";

TEST(ClosureWitness, ClosesASectionLeftOpenWhoseWriteIsRead) {
  Fixture f(kOpenSectionFeedsRead);
  analysis::ClosureWitnessFinder finder(*f.idx);
  expectRaceWitness(f, finder.find(7, 13), 7, 13,
                    {0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 7, 13});
}

// A section that holds one of the racing events cannot close: it stays
// open and runs last, after t0's section of the same lock.
const char *kRaceInsideSection = R"(
t0 begin
t0 fork t1
t1 begin
t1 acq m
t1 rd y 0
t1 rel m
t1 wr z 1
t0 acq m
t0 wr z 2
t0 rel m
)";

TEST(ClosureWitness, KeepsOpenTheSectionThatHoldsARacingEvent) {
  Fixture f(kRaceInsideSection);
  analysis::ClosureWitnessFinder finder(*f.idx);
  auto w = finder.find(6, 8);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(eventsOf(*w), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 7, 6, 8}));
}

// t1's read of y observed the write of 1 after t0's racing write of x
// (test/inputs/scale/other_writer.rpt.txt): it takes t0's earlier write of
// 1 instead, and waits for it.
const char *kEarlierWriterOfValue = R"(
t0 begin
t0 fork t1
t0 awr y 1
t0 wr x 1
t0 awr y 0
t0 awr y 1
t1 begin
t1 ard y 1
t1 br
t1 rd x 1
)";

TEST(ClosureWitness, TakesAnEarlierWriteOfTheSameValue) {
  Fixture f(kEarlierWriterOfValue);
  analysis::ClosureWitnessFinder finder(*f.idx);
  auto w = finder.find(3, 9);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(eventsOf(*w), (std::vector<uint32_t>{0, 1, 2, 6, 7, 8, 3, 9}));
}

// The only other write of 1 is listed after the read
// (test/inputs/scale/later_writer.rpt.txt): left to the solver.
const char *kLaterWriterOfValue = R"(
t0 begin
t0 fork t1
t0 fork t2
t0 wr x 1
t0 awr y 1
t1 begin
t1 ard y 1
t1 br
t1 rd x 1
t2 begin
t2 awr y 1
)";

TEST(ClosureWitness, LeavesALaterWriteOfTheValueToTheSolver) {
  Fixture f(kLaterWriterOfValue);
  analysis::ClosureWitnessFinder finder(*f.idx);
  EXPECT_EQ(finder.find(3, 8), std::nullopt);
}

} // namespace

// With checkpoints of the observed run (--all-pairs), a closure starts from
// the latest one before the racing pair: every event before it is in the
// witness, in observed order, even t2's, which the race on x does not need.
const char *kUnrelatedThread = R"(
t0 begin
t0 fork t1
t0 fork t2
t2 begin
t2 wr z 1
t1 begin
t1 wr y 5
t0 wr x 1
t1 wr x 2
)";

TEST(ClosureWitness, StartsFromTheLatestCheckpointBeforeThePair) {
  Fixture f(kUnrelatedThread);
  analysis::ClosureWitnessFinder fresh(*f.idx), shared(*f.idx, 2);
  expectRaceWitness(f, fresh.find(7, 8), 7, 8, {0, 1, 2, 5, 6, 7, 8});
  // Checkpoints after 2, 4 and 6 events: the one after 6 is the latest
  // before 7.
  expectRaceWitness(f, shared.findFromCheckpoint(7, 8), 7, 8,
                    {0, 1, 2, 3, 4, 5, 6, 7, 8});
}

// t2 holds m at the checkpoint (after 8 events). Its acquire has run, so
// its section cannot be the one left open to run last: it must close, and
// t1's section of m, which the race needs, runs after it. From event 0 the
// closure leaves t2 out.
const char *kHeldAtCheckpoint = R"(
t0 begin
t0 fork t1
t0 fork t2
t2 begin
t2 acq m
t1 begin
t0 wr z 1
t1 wr w 1
t2 wr y 1
t2 rel m
t1 acq m
t1 rel m
t0 wr x 1
t1 wr x 2
)";

TEST(ClosureWitness, ASectionOpenAtTheCheckpointCloses) {
  Fixture f(kHeldAtCheckpoint);
  analysis::ClosureWitnessFinder fresh(*f.idx), shared(*f.idx, 2);
  expectRaceWitness(f, fresh.find(12, 13), 12, 13,
                    {0, 1, 2, 5, 6, 7, 10, 11, 12, 13});
  expectRaceWitness(f, shared.findFromCheckpoint(12, 13), 12, 13,
                    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13});
}

// A section holding one of the racing events must stay open: the start
// lies before its acquire, not at the latest checkpoint.
const char *kPairInsideSection = R"(
t0 begin
t0 fork t1
t1 begin
t0 acq m
t0 wr z 1
t0 wr w 1
t0 wr x 1
t0 rel m
t1 wr x 2
)";

TEST(ClosureWitness, StartsBeforeTheSectionHoldingThePair) {
  Fixture f(kPairInsideSection);
  analysis::ClosureWitnessFinder shared(*f.idx, 2);
  // Checkpoints after 2 and 4 events; t0 acquired m at 3: after 2.
  expectRaceWitness(f, shared.findFromCheckpoint(6, 8), 6, 8,
                    {0, 1, 2, 3, 4, 5, 6, 8});
}
