//===- witness_schedule_test.cpp - A witness sharing its prefix -----------===//
#include "racepredict/analysis/closure_witness.h"
#include "racepredict/analysis/witness_reuse.h"
#include "racepredict/analysis/witness_schedule.h"
#include "trace_fixture.h"

#include <gtest/gtest.h>

using namespace racepredict;
using analysis::Step;
using analysis::WitnessSchedule;
using testsupport::eventsOf;

namespace {

using Fixture = testsupport::TraceFixture;

std::shared_ptr<const analysis::SharedSteps> sharedSteps() {
  // The fourth step is a wait's release half.
  return std::make_shared<const analysis::SharedSteps>(std::vector<Step>{
      {0, false}, {1, false}, {2, false}, {3, true}, {4, false}});
}

TEST(WitnessSchedule, ExpandsToItsSharedStepsThenItsOwn) {
  auto base = sharedSteps();
  WitnessSchedule w(base, 2, {{7, false}, {8, false}});
  EXPECT_EQ(w.size(), 4u);
  EXPECT_EQ(eventsOf(w), (std::vector<uint32_t>{0, 1, 7, 8}));
  EXPECT_EQ(w.events(), (std::vector<uint32_t>{0, 1, 7, 8}));
  EXPECT_EQ(w[1], (Step{1, false}));
  EXPECT_EQ(w[2], (Step{7, false}));
  EXPECT_FALSE(w.hasHalf()); // the half lies beyond its shared steps
  std::vector<Step> walked;
  w.forEach([&](const Step &s) { walked.push_back(s); });
  EXPECT_EQ(walked, w.steps());

  WitnessSchedule h(base, 4, {{9, false}});
  EXPECT_TRUE(h.hasHalf());
  // The half is a step, not an event.
  EXPECT_EQ(h.events(), (std::vector<uint32_t>{0, 1, 2, 9}));
  EXPECT_EQ(eventsOf(h), (std::vector<uint32_t>{0, 1, 2, 3, 9}));
}

TEST(WitnessSchedule, ACutSharesWhatItShares) {
  auto base = sharedSteps();
  WitnessSchedule w(base, 3, {{7, false}, {8, false}});
  WitnessSchedule inShared = w.cut(2);
  EXPECT_EQ(inShared.base(), base);
  EXPECT_EQ(inShared.sharedLength(), 2u);
  EXPECT_TRUE(inShared.own().empty());
  WitnessSchedule intoOwn = w.cut(4);
  EXPECT_EQ(intoOwn.sharedLength(), 3u);
  EXPECT_EQ(eventsOf(intoOwn), (std::vector<uint32_t>{0, 1, 2, 7}));
  // Equal steps are equal schedules, however they are shared.
  EXPECT_EQ(intoOwn, WitnessSchedule({{0}, {1}, {2}, {7}}));
  EXPECT_NE(intoOwn, WitnessSchedule({{0}, {1}, {2}, {3}}));
  // Sharing none of it keeps nothing alive.
  EXPECT_EQ(w.cut(0).base(), nullptr);
}

// Two threads with an access each after a run of writes of their own: both
// candidates start from the latest checkpoint of the observed run before
// them, and share its steps instead of copying them.
const char *kTwoRaces = R"(
t0 begin
t0 fork t1
t1 begin
t0 wr a 1
t1 wr b 1
t0 wr c 1
t1 wr d 1
t0 wr x 1
t1 wr x 2
t0 wr y 1
t1 wr y 2
)";

TEST(WitnessSchedule, ClosuresFromOneCheckpointShareItsSteps) {
  Fixture f(kTwoRaces);
  analysis::ClosureWitnessFinder finder(*f.idx, 2);
  auto x = finder.findFromCheckpoint(7, 8);
  auto y = finder.findFromCheckpoint(9, 10);
  ASSERT_TRUE(x && y);
  // Checkpoints after 2, 4 and 6 events: x's starts at 6, y's at 8 or
  // earlier, one sequence for both.
  EXPECT_GT(x->sharedLength(), 0u);
  EXPECT_EQ(x->base(), y->base());
  testsupport::expectRaceWitness(f, x, 7, 8, {0, 1, 2, 3, 4, 5, 6, 7, 8});
  testsupport::expectRaceWitness(f, y, 9, 10,
                                 {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10});

  // A witness cut from a shared one (witness_reuse.h) shares it too.
  analysis::WitnessPool pool(*f.idx, 4);
  pool.add(*y);
  auto cut = pool.find(7, 8);
  ASSERT_TRUE(cut.has_value());
  EXPECT_EQ(cut->base(), y->base());
  testsupport::expectRaceWitness(f, cut, 7, 8, {0, 1, 2, 3, 4, 5, 6, 7, 8});
}

} // namespace
