//===- greedy_witness_test.cpp - Value-keeping greedy race schedules ------===//
//
// analysis/greedy_witness.h on a trace whose race needs a read to take
// another write of its value than the observed one, at a moment the
// observed order never has: the closure fast path cannot build it, the
// greedy schedule that runs a's and b's threads first can. Every witness
// it returns passes the schedule checker and ends with the racing pair.
//
#include "racepredict/analysis/closure_witness.h"
#include "racepredict/analysis/greedy_witness.h"
#include "racepredict/analysis/mhb.h"
#include "trace_fixture.h"

#include <gtest/gtest.h>

using namespace racepredict;
using analysis::Step;

namespace {

using Fixture = testsupport::TraceFixture;
using testsupport::eventsOf;

std::optional<std::vector<Step>> greedy(const Fixture &f, uint32_t a,
                                        uint32_t b) {
  analysis::MustHappenBefore mhb(*f.idx);
  analysis::Slicer slicer(*f.idx, mhb);
  analysis::PairSlice slice;
  EXPECT_TRUE(slicer.slice(a, b, &slice));
  return analysis::findGreedyWitness(*f.idx, slice, a, b);
}

// The race (7, 13) on y: t1 reads x = 1 (observed from t0's write after
// a, event 8) and then z = 1, which t2 writes after resetting x to 0. A
// witness must run t1's read of x between t2's two writes of x, i.e. before
// t2's events that the observed order puts first.
const char *kReadBetweenTwoWrites = R"(
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
t1 wr y 2
)";

TEST(GreedyWitness, RunsAReadWhileAnEarlierWriteOfItsValueIsLast) {
  Fixture f(kReadBetweenTwoWrites);
  EXPECT_FALSE(analysis::ClosureWitnessFinder(*f.idx).find(7, 13));
  auto w = greedy(f, 7, 13);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(eventsOf(*w),
            (std::vector<uint32_t>{0, 1, 2, 9, 3, 4, 10, 5, 6, 11, 12, 7, 13}));
  EXPECT_EQ(
      analysis::checkRaceWitness(*f.idx, {w->begin(), w->end() - 2}, 7, 13),
      std::nullopt);
}

} // namespace
