//===- deadlock_witness_test.cpp - "Blocked for good", rule by rule -------===//
//
// checkDeadlockWitness on hand-made schedules: for each rule of
// docs/semantics.md ("Deadlocks") a state where it holds is accepted with
// the exact reason, and a near miss is rejected with the sentence that
// says why.
//
#include "racepredict/analysis/deadlock.h"
#include "racepredict/analysis/schedule_checker.h"
#include "racepredict/trace/text_format.h"

#include "trace_fixture.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace racepredict;
using analysis::BlockKind;
using analysis::BlockReason;
using analysis::Step;

namespace {

struct Fixture : testsupport::TraceFixture {
  using TraceFixture::TraceFixture;
  std::optional<std::string> check(const std::vector<Step> &s,
                                   const std::vector<uint32_t> &blocked,
                                   std::vector<BlockReason> *rs = nullptr) {
    return analysis::checkDeadlockWitness(*idx, s, blocked, rs);
  }
};

std::vector<Step> steps(std::initializer_list<uint32_t> ids) {
  std::vector<Step> s;
  for (uint32_t e : ids)
    s.push_back({e, false});
  return s;
}

const char *kOpposite = R"(
t1 acq a
t1 acq b
t1 rel b
t1 rel a
t2 acq b
t2 acq a
t2 rel a
t2 rel b
)";

} // namespace

TEST(DeadlockWitness, LockCycleNamesHoldersAndAcquisitions) {
  Fixture f(kOpposite);
  std::vector<BlockReason> rs;
  ASSERT_EQ(f.check(steps({0, 4}), {1, 5}, &rs), std::nullopt);
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[0].kind, BlockKind::Lock);
  EXPECT_EQ(rs[0].other, 1u); // t2 (thread ids in order of appearance)
  EXPECT_EQ(rs[0].since, 4u);
  EXPECT_FALSE(rs[0].holderFinished);
  EXPECT_EQ(rs[1].other, 0u);
  EXPECT_EQ(rs[1].since, 0u);
  EXPECT_EQ(analysis::deadlockKind(rs), "lock-order");
  EXPECT_EQ(analysis::waitForCycle(rs), (std::vector<size_t>{0, 1}));
}

TEST(DeadlockWitness, HolderOutsideTheSetIsNotForGood) {
  Fixture f(kOpposite);
  // t1 waits for b held by t2, but t2 is not named: it can release b.
  EXPECT_EQ(f.check(steps({0, 4}), {1}),
            "after the schedule, event 1 of t1 is not blocked for good: no "
            "holder of its lock is blocked or finished");
  EXPECT_EQ(f.check(steps({0}), {1}),
            "after the schedule, event 1 of t1 is not blocked for good: it "
            "is enabled");
  EXPECT_EQ(f.check(steps({0, 1}), {1}),
            "after the schedule, event 1 is not the next event of t1");
}

// Each thread locks one lock and try-locks the other (kEventTryAcquire; a
// read try-lock for t1). The cut where both hold their first is no
// deadlock: a try-lock with its lock taken fails, it never waits.
TEST(DeadlockWitness, ATryAcquireNeverWaits) {
  Fixture f(R"(
t1 acq a
t1 racq r try
t1 rel r
t1 rel a
t2 acq r
t2 acq a try
t2 rel a
t2 rel r
)");
  EXPECT_EQ(f.check(steps({0, 4}), {1, 5}),
            "after the schedule, event 1 of t1 is not blocked for good: a "
            "try-acquire never waits: with its lock taken it fails");
}

TEST(DeadlockWitness, ReadersDoNotBlockReaders) {
  Fixture f(R"(
t1 racq r
t1 acq m
t1 rel m
t1 rel r
t2 acq m
t2 racq r
t2 rel r
t2 rel m
)");
  EXPECT_EQ(f.check(steps({0, 4}), {1, 5}),
            "after the schedule, event 5 of t2 is not blocked for good: it "
            "is enabled");
}

TEST(DeadlockWitness, SemaphoreNeedsEveryOtherThreadFinished) {
  Fixture f(R"(
t0 seminit s 0
t0 fork t1
t0 post s
t1 semwait s
t1 post s
t0 semwait s
t0 join t1
)");
  std::vector<BlockReason> rs;
  ASSERT_EQ(f.check(steps({0, 1, 2, 5}), {3, 6}, &rs), std::nullopt);
  EXPECT_EQ(rs[0].kind, BlockKind::Semaphore);
  EXPECT_EQ(rs[0].count, 0);
  EXPECT_EQ(rs[1].kind, BlockKind::Join);
  EXPECT_EQ(rs[1].other, 1u);
  EXPECT_EQ(analysis::deadlockKind(rs), "semaphore");
  EXPECT_TRUE(analysis::waitForCycle(rs).empty());
  // Without t0 in the set, t0 can still move (and could post).
  EXPECT_EQ(f.check(steps({0, 1, 2, 5}), {3}),
            "after the schedule, event 3 of t1 is not blocked for good: a "
            "thread outside the set can still move (and post)");
}

TEST(DeadlockWitness, ACutRecordingCanStillPost) {
  // t2 began but has no end: recording stopped while it ran.
  Fixture f(R"(
t0 seminit s 0
t0 fork t1
t0 fork t2
t2 begin
t0 post s
t1 semwait s
t1 post s
t0 semwait s
t0 join t1
)");
  EXPECT_EQ(f.check(steps({0, 1, 2, 3, 4, 7}), {5, 8}),
            "after the schedule, event 5 of t1 is not blocked for good: a "
            "thread outside the set can still move (and post)");
}

TEST(DeadlockWitness, TheProcessExitEndsEveryWait) {
  Fixture f(R"(
t0 begin
t0 seminit s 0
t0 fork t1
t0 post s
t1 semwait s
t1 post s
t0 semwait s
t0 end
)");
  EXPECT_EQ(f.check(steps({0, 1, 2, 3, 6, 7}), {4}),
            "the schedule executes event 7, which ends the process");
}

TEST(DeadlockWitness, BarrierShortOfArrivals) {
  Fixture f(R"(
t0 fork t1
t0 fork t2
t1 acq m
t1 rel m
t1 barrier b 2
t2 acq m
t2 barrier b 2
t2 rel m
t0 join t1
t0 join t2
)");
  std::vector<BlockReason> rs;
  std::vector<Step> s = steps({0, 1, 5});
  s.push_back({6, true}); // t2 arrives
  ASSERT_EQ(f.check(s, {2, 6, 8}, &rs), std::nullopt);
  EXPECT_EQ(rs[1].kind, BlockKind::Barrier);
  EXPECT_EQ(rs[1].arrived, 1u);
  EXPECT_EQ(rs[1].needed, 2u);
  EXPECT_EQ(rs[0].kind, BlockKind::Lock);
  EXPECT_EQ(analysis::deadlockKind(rs), "barrier");
  // Not arrived yet: t2 can still take its first half.
  EXPECT_EQ(f.check(steps({0, 1, 5}), {2, 6, 8}),
            "after the schedule, event 6 of t2 is not blocked for good: its "
            "first half has not been executed (it can still take it)");
}

TEST(DeadlockWitness, ArrivalsOfTwoGenerationsReleaseARealBarrier) {
  // Generations {3, 5} and {6, 8}; t1 and t3 both wait at b: in the model
  // each waits for its own generation, a real barrier releases them both.
  Fixture f(R"(
t0 fork t1
t0 fork t2
t1 acq m
t1 barrier b 2
t1 rel m
t2 barrier b 2
t2 barrier b 2
t0 fork t3
t3 barrier b 2
)");
  std::vector<Step> s = steps({0, 1, 2, 7});
  s.push_back({3, true}); // t1 arrives in generation 0, holding m
  s.push_back({8, true}); // t3 arrives in generation 1
  EXPECT_EQ(f.check(s, {3, 8}),
            "after the schedule, event 3 of t1 is not blocked for good: "
            "enough threads wait at the barrier to release it");
}

TEST(DeadlockWitness, NotifyNobodyIsLeftToSend) {
  Fixture f(R"(
t0 fork t1
t0 fork t2
t2 acq l
t2 rel l
t1 acq l
t1 acq m
t2 acq m
t2 signal c
t2 rel m
t1 wait c m <- 7
t1 rel m
t1 rel l
t0 join t1
t0 join t2
)");
  std::vector<BlockReason> rs;
  std::vector<Step> s = steps({0, 1, 4, 5});
  s.push_back({9, true}); // t1 releases m and waits
  ASSERT_EQ(f.check(s, {2, 9, 12}, &rs), std::nullopt);
  EXPECT_EQ(rs[0].kind, BlockKind::Lock);
  EXPECT_EQ(rs[1].kind, BlockKind::Notify);
  EXPECT_EQ(rs[2].kind, BlockKind::Join);
  EXPECT_EQ(analysis::deadlockKind(rs), "condition");
}

TEST(DeadlockWitness, NeverCreatedThread) {
  Fixture f(R"(
t0 fork t1
t0 acq m
t0 fork t2
t0 rel m
t2 wr x 1
t1 acq m
t1 join t2
t1 rel m
)");
  std::vector<BlockReason> rs;
  ASSERT_EQ(f.check(steps({0, 5}), {1, 4, 6}, &rs), std::nullopt);
  EXPECT_EQ(rs[1].kind, BlockKind::NotCreated);
  EXPECT_EQ(rs[1].other, 0u);
  EXPECT_EQ(rs[1].since, 2u);
  EXPECT_EQ(analysis::deadlockKind(rs), "wait-cycle");
  // t2 alone: its creator t0 is not blocked.
  EXPECT_EQ(f.check(steps({0, 5}), {4}),
            "after the schedule, event 4 of t2 is not blocked for good: it "
            "has not been created and its creator t0 is not blocked");
}

TEST(DeadlockWitness, LockAbandonedByAFinishedThread) {
  Fixture f(R"(
t0 fork t1
t0 fork t2
t2 begin
t2 acq m
t2 rel m
t2 end
t1 begin
t1 acq m
t1 end
t0 join t2
t0 join t1
)");
  std::vector<BlockReason> rs;
  ASSERT_EQ(f.check(steps({0, 6, 7, 8, 1, 2}), {3}, &rs), std::nullopt);
  EXPECT_EQ(rs[0].kind, BlockKind::Lock);
  EXPECT_TRUE(rs[0].holderFinished);
  EXPECT_EQ(rs[0].since, 7u);
  EXPECT_EQ(analysis::deadlockKind(rs), "abandoned-lock");
}

TEST(DeadlockWitness, BadInputIsASentence) {
  Fixture f(kOpposite);
  EXPECT_EQ(f.check(steps({0, 4}), {}), "no blocked thread named");
  EXPECT_EQ(f.check(steps({0, 4}), {99}), "blocked event 99 out of range");
  EXPECT_EQ(f.check(steps({0, 4}), {1, 2}), "two blocked events of t1");
  EXPECT_EQ(f.check(steps({1}), {2}),
            "step 0 (event 1, t1 acq b): not the next event of t1");
}
