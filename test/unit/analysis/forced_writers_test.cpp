//===- forced_writers_test.cpp - "No race" from forced writers ------------===//
//
// analysis/forced_writers.h on hand-written traces: a pair is refuted only
// when a read every witness needs concrete has no write of its value the
// witness may run; the verdicts agree with the solver's (checked here on
// the same traces with --no-fast-path).
//
#include "racepredict/analysis/forced_writers.h"
#include "racepredict/solver/race_predictor.h"
#include "trace_fixture.h"

#include <gtest/gtest.h>

using namespace racepredict;

namespace {

struct Fixture : testsupport::TraceFixture {
  using TraceFixture::TraceFixture;
  /// The solver alone: does (a, b) race?
  bool solverRaces(analysis::EventId a, analysis::EventId b) const {
    solver::RaceOptions o;
    o.allPairs = true;
    o.noFastPath = true;
    o.noFilters = true;
    for (const auto &f : solver::predictRaces(*idx, o).races)
      if (f.first == a && f.second == b)
        return true;
    return false;
  }
};

// t1 branches on the counter value 2, which only t0's write after its
// racing access (3) stores.
const char *kCounterAfterA = R"(
init s 0
init stat 0
t0 begin
t0 fork t1
t0 wr s 1
t0 wr stat 1
t0 wr s 2
t1 begin
t1 rd s 2
t1 br
t1 wr stat 2
)";

TEST(ForcedWriters, RefutesAReadWhoseOnlyWriterFollowsTheRacingAccess) {
  Fixture f(kCounterAfterA);
  analysis::ForcedWriterRefuter refuter(*f.idx);
  EXPECT_TRUE(refuter.refutes(3, 8));
  EXPECT_FALSE(f.solverRaces(3, 8));
}

// The same, but t0 also stored 2 before its racing access: the read has an
// option, nothing is refuted, and the pair races.
const char *kCounterAlsoBefore = R"(
init s 0
init stat 0
t0 begin
t0 fork t1
t0 wr s 2
t0 wr stat 1
t0 wr s 2
t1 begin
t1 rd s 2
t1 br
t1 wr stat 2
)";

TEST(ForcedWriters, AnotherWriteOfTheValueIsAnOption) {
  Fixture f(kCounterAlsoBefore);
  analysis::ForcedWriterRefuter refuter(*f.idx);
  EXPECT_FALSE(refuter.refutes(3, 8));
  EXPECT_TRUE(f.solverRaces(3, 8));
}

// Through a writer: t1 needs the value 5 that only t2 writes, and t2
// writes it after branching on the value 2 that only t0 writes after its
// racing access. t2's write is forced, so its earlier read is too.
const char *kThroughAWriter = R"(
init s 0
init u 0
init stat 0
t0 begin
t0 fork t1
t0 fork t2
t0 wr stat 1
t0 wr s 2
t2 begin
t2 rd s 2
t2 wr u 5
t1 begin
t1 rd u 5
t1 br
t1 wr stat 2
)";

TEST(ForcedWriters, AForcedWriterNeedsItsOwnReadsConcrete) {
  Fixture f(kThroughAWriter);
  analysis::ForcedWriterRefuter refuter(*f.idx);
  EXPECT_TRUE(refuter.refutes(3, 11));
  EXPECT_FALSE(f.solverRaces(3, 11));
}

// The initial value is an option too: t1 may read s = 0 before any write.
const char *kInitialValue = R"(
init s 0
init stat 0
t0 begin
t0 fork t1
t0 wr stat 1
t0 wr s 0
t1 begin
t1 rd s 0
t1 br
t1 wr stat 2
)";

TEST(ForcedWriters, TheInitialValueIsAnOption) {
  Fixture f(kInitialValue);
  analysis::ForcedWriterRefuter refuter(*f.idx);
  EXPECT_FALSE(refuter.refutes(2, 7));
  EXPECT_TRUE(f.solverRaces(2, 7));
}

} // namespace
