//===- schedule_checker_test.cpp - Enabling rules of docs/semantics.md ----===//
//
// One test per rule of the "Schedules" and "Values and concreteness"
// tables: a schedule that respects it is accepted, one that breaks it is
// rejected with a message naming the step and the reason.
//
#include "racepredict/analysis/schedule_checker.h"
#include "racepredict/trace/text_format.h"

#include "trace_fixture.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace racepredict;
using analysis::Step;

namespace {

struct Fixture : testsupport::TraceFixture {
  using TraceFixture::TraceFixture;
  std::optional<std::string> check(const std::vector<Step> &s) const {
    return analysis::checkPrefixSchedule(*idx, s);
  }
};

std::vector<Step> events(std::initializer_list<uint32_t> ids) {
  std::vector<Step> s;
  for (uint32_t e : ids)
    s.push_back({e, false});
  return s;
}

// Huang et al. PLDI'14 Fig. 1 shape: the race needs t2 to run first.
const char *kFig1 = R"(
t1 begin
t1 fork t2
t1 acq l
t1 wr x 1
t1 wr y 1
t1 rel l
t2 begin
t2 acq l
t2 rd y 1
t2 rel l
t2 br
t2 rd x 1
)";

TEST(ScheduleChecker, AcceptsTheObservedTrace) {
  Fixture f(kFig1);
  EXPECT_EQ(f.check(events({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})),
            std::nullopt);
}

TEST(ScheduleChecker, ProgramOrderAndFork) {
  Fixture f(kFig1);
  EXPECT_EQ(*f.check(events({0, 2})),
            "step 1 (event 2, t1 acq l): not the next event of t1");
  EXPECT_EQ(*f.check(events({6})),
            "step 0 (event 6, t2 begin): t2 has not been forked yet");
  EXPECT_EQ(*f.check(events({0, 1, 6, 6})),
            "step 3 (event 6, t2 begin): already executed");
}

TEST(ScheduleChecker, LockExclusion) {
  Fixture f(kFig1);
  EXPECT_EQ(*f.check(events({0, 1, 2, 6, 7})),
            "step 4 (event 7, t2 acq l): l is held by another thread");
  EXPECT_EQ(f.check(events({0, 1, 2, 3, 4, 5, 6, 7})), std::nullopt);
}

TEST(ScheduleChecker, StuckBranchAfterReadOfAnotherValue) {
  Fixture f(kFig1);
  // t2 reads y before t1 wrote it: y's initial value is unknown (first
  // access is a write), so the read is not concrete and the branch is stuck.
  EXPECT_EQ(*f.check(events({0, 1, 6, 7, 8, 9, 10})),
            "step 6 (event 10, t2 br): an earlier read of its thread saw "
            "another value");
}

TEST(ScheduleChecker, RaceWitness) {
  Fixture f(kFig1);
  // (3, 11) is no race: 11 follows the branch, which needs y = 1.
  EXPECT_TRUE(
      analysis::checkRaceWitness(*f.idx, events({0, 1, 6, 7, 8, 9}), 3, 11)
          .has_value());
  EXPECT_EQ(analysis::checkRaceWitness(
                *f.idx, events({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}), 3, 11),
            "after the schedule, event 3 is not the next event of t1");
  EXPECT_EQ(*analysis::checkRaceWitness(*f.idx, {}, 3, 4),
            "racing events 3 and 4 belong to the same thread");
}

TEST(ScheduleChecker, PreciseDependenceIgnoresOtherReads) {
  Fixture f(R"(
t1 wr x 5
t1 wr y 1
t2 rd y 1
t2 rd x 5
t2 br <- 3
t2 wr z 1
)");
  // Without t1's write of y the read of y (event 2) is not concrete (y has
  // no initial value), but the branch only depends on the read of x.
  EXPECT_EQ(f.check(events({0, 2, 3, 4, 5})), std::nullopt);
  EXPECT_EQ(*f.check(events({2, 3, 4})),
            "step 2 (event 4, t2 br): its dependence, event 3, saw another "
            "value");
}

TEST(ScheduleChecker, FirstReadRuleGivesInitialValue) {
  Fixture f(R"(
t2 rd x 0
t1 wr x 1
t2 br
)");
  EXPECT_EQ(f.check(events({0, 2})), std::nullopt);
  EXPECT_TRUE(f.check(events({1, 0, 2})).has_value());
}

TEST(ScheduleChecker, WaitHasTwoHalves) {
  Fixture f(R"(
t1 acq m
t2 acq m
t2 signal c
t2 rel m
t1 wait c m <- 2
t1 rel m
)");
  // The wait releases m in its first half, so t2 can lock and signal.
  EXPECT_EQ(f.check({{0, false},
                     {4, true},
                     {1, false},
                     {2, false},
                     {3, false},
                     {4, false},
                     {5, false}}),
            std::nullopt);
  EXPECT_EQ(*f.check({{0, false}, {4, false}}),
            "step 1 (event 4, t1 wait c): its first half has not been "
            "executed");
  EXPECT_EQ(
      *f.check({{0, false}, {4, true}, {1, false}, {2, false}, {4, false}}),
      "step 4 (event 4, t1 wait c): m is held by another thread");
  // A notify wakes only a thread that is already waiting.
  EXPECT_EQ(*f.check({{1, false}, {2, false}}),
            "step 1 (event 2, t2 signal c): the wait it woke, event 4, is "
            "not waiting yet");
}

TEST(ScheduleChecker, BarrierDepartureNeedsAllArrivals) {
  Fixture f(R"(
t1 barrier b 2
t2 barrier b 2
t1 wr x 1
)");
  EXPECT_EQ(*f.check({{0, true}, {0, false}}),
            "step 1 (event 0, t1 barrier b): not every thread of its "
            "generation has arrived");
  EXPECT_EQ(f.check({{0, true}, {1, true}, {0, false}, {2, false}}),
            std::nullopt);
}

TEST(ScheduleChecker, SemaphoreCounts) {
  Fixture f(R"(
t1 seminit s 0
t2 semwait s
t1 post s
)");
  // The observed order is only valid if s starts at 1 or more... it does not:
  // semInitialCount makes the observed trace valid, so s starts at 1.
  EXPECT_EQ(f.check(events({1})), std::nullopt);
  Fixture g(R"(
t1 seminit s 0
t1 post s
t2 semwait s
)");
  EXPECT_EQ(*g.check(events({0, 2})),
            "step 1 (event 2, t2 semwait s): s is zero");
  EXPECT_EQ(g.check(events({0, 1, 2})), std::nullopt);
}

TEST(ScheduleChecker, TryfailMustFailAgain) {
  Fixture f(R"(
t1 acq m
t2 tryfail m
t2 br
t1 rel m
)");
  EXPECT_EQ(f.check(events({0, 1, 2})), std::nullopt);
  EXPECT_EQ(*f.check(events({1, 2})),
            "step 1 (event 2, t2 br): an earlier read of its thread saw "
            "another value");
}

TEST(ScheduleChecker, JoinNeedsFinishedChild) {
  Fixture f(R"(
t1 fork t2
t2 begin
t2 end
t1 join t2
)");
  EXPECT_EQ(*f.check(events({0, 1, 3})),
            "step 2 (event 3, t1 join t2): t2 has not finished");
}

TEST(ScheduleChecker, ExpandWitnessInsertsHalvesWhereNeeded) {
  Fixture f(R"(
t1 acq m
t2 acq m
t2 signal c
t2 rel m
t1 wait c m <- 2
t1 rel m
)");
  auto steps = analysis::expandWitness(*f.idx, {0, 1, 2, 3, 4});
  ASSERT_TRUE(steps.has_value());
  std::vector<Step> want{{0, false}, {4, true},  {1, false},
                         {2, false}, {3, false}, {4, false}};
  EXPECT_EQ(*steps, want);
  // t1 cannot lock m while t2 holds it, and t2 does not wait.
  EXPECT_FALSE(analysis::expandWitness(*f.idx, {1, 0}).has_value());
}

} // namespace
