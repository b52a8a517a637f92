//===- schedule_builder_test.cpp - Threads by creation path, ordinals -----===//
#include "replay_test_util.h"

#include "racepredict/analysis/trace_index.h"
#include "racepredict/replay/schedule.h"

using namespace racepredict;
using racepredict::testing::parseTrace;

namespace {

std::vector<analysis::Step> events(std::initializer_list<uint32_t> ids) {
  std::vector<analysis::Step> s;
  for (uint32_t e : ids)
    s.push_back({e, false});
  return s;
}

// t0 creates t1 then t3; t1 creates t2. Creation order (keys) is t1, t2, t3
// but paths are: t1 = (t0, 0), t3 = (t0, 1), t2 = (t1, 0).
const char *kTree = R"(t0 begin
t0 fork t1
t1 begin
t1 fork t2
t2 begin
t2 wr x 1 @a.c:5
t0 fork t3
t3 begin
t3 alloc h 4
t3 free h 4
t3 rd x 1 @a.c:9
)";

TEST(ScheduleBuilder, ThreadsAreNamedByCreationPath) {
  trace::Trace t = parseTrace(kTree);
  analysis::TraceIndex idx(t);
  report::SourceText src;
  auto s = replay::raceSchedule(idx, events({0, 1, 2, 3, 4, 6, 7, 5, 10}), 5,
                                10, src);
  ASSERT_TRUE(static_cast<bool>(s)) << s.error().message;
  ASSERT_EQ(s->threads.size(), 4u);
  // Breadth first: t0, its children t1 and t3, then t1's child t2.
  EXPECT_EQ(s->threads[0].name, "t0");
  EXPECT_EQ(s->threads[0].parent, replay::kRoot);
  EXPECT_EQ(s->threads[1].name, "t1");
  EXPECT_EQ(s->threads[1].parent, 0u);
  EXPECT_EQ(s->threads[1].childOrdinal, 0u);
  EXPECT_EQ(s->threads[2].name, "t3");
  EXPECT_EQ(s->threads[2].parent, 0u);
  EXPECT_EQ(s->threads[2].childOrdinal, 1u);
  EXPECT_EQ(s->threads[3].name, "t2");
  EXPECT_EQ(s->threads[3].parent, 1u);
  EXPECT_EQ(s->threads[3].childOrdinal, 0u);
  // t3's read is its 2nd scheduled event: alloc and free do not count.
  const auto &last = s->steps.back();
  EXPECT_EQ(last.event, 10u);
  EXPECT_EQ(last.thread, 2u);
  EXPECT_EQ(last.ordinal, 1u);
  EXPECT_EQ(last.loc.file, "a.c");
  EXPECT_EQ(last.loc.line, 9u);
  EXPECT_NE(last.desc.find("[10] t3 rd x 1  @ a.c:9"), std::string::npos)
      << last.desc;
}

TEST(ScheduleBuilder, AllocationsAreNoSteps) {
  trace::Trace t = parseTrace(kTree);
  analysis::TraceIndex idx(t);
  report::SourceText src;
  auto s = replay::raceSchedule(idx, events({0, 1, 2, 3, 4, 6, 7, 8, 9, 5, 10}),
                                5, 10, src);
  ASSERT_TRUE(static_cast<bool>(s)) << s.error().message;
  EXPECT_EQ(s->steps.size(), 9u);
  for (const auto &st : s->steps)
    EXPECT_NE(st.kind, trace::EventKind::Alloc);
}

TEST(ScheduleBuilder, ThreadWithoutForkCannotBeNamed) {
  trace::Trace t = parseTrace(R"(t0 wr x 1 @a.c:1
t9 rd x 1 @a.c:2
)");
  analysis::TraceIndex idx(t);
  report::SourceText src;
  auto s = replay::raceSchedule(idx, events({0, 1}), 0, 1, src);
  ASSERT_FALSE(static_cast<bool>(s));
  EXPECT_EQ(s.error().message,
            "thread t9 (event 1) was not created by pthread_create in the "
            "trace, so it cannot be identified in another run");
}

TEST(ScheduleBuilder, WitnessMustEndWithTheRacingPair) {
  trace::Trace t = parseTrace(kTree);
  analysis::TraceIndex idx(t);
  report::SourceText src;
  auto s = replay::raceSchedule(idx, events({0, 1, 2}), 5, 10, src);
  ASSERT_FALSE(static_cast<bool>(s));
  EXPECT_EQ(s.error().message,
            "the witness does not end with the racing events 5 and 10");
}

using analysis::BlockKind;

std::vector<analysis::Step> withHalf(std::initializer_list<uint32_t> ids,
                                     uint32_t half) {
  std::vector<analysis::Step> s = events(ids);
  s.push_back({half, true});
  return s;
}

TEST(ScheduleBuilder, DeadlockHolderIsWhoeverHoldsTheRequestedLock) {
  // Three threads in a cycle: t1 holds a wants b, t2 holds b wants c, t3
  // holds c wants a.
  trace::Trace t = parseTrace(R"(t0 fork t1
t0 fork t2
t0 fork t3
t1 acq a @d.c:1
t2 acq b @d.c:2
t3 acq c @d.c:3
t1 acq b @d.c:4
t2 acq c @d.c:5
t3 acq a @d.c:6
)");
  analysis::TraceIndex idx(t);
  report::SourceText src;
  auto s = replay::deadlockSchedule(idx, events({0, 1, 2, 3, 4, 5}),
                                    {{6, BlockKind::Lock, 4},
                                     {7, BlockKind::Lock, 5},
                                     {8, BlockKind::Lock, 3}},
                                    src);
  ASSERT_TRUE(static_cast<bool>(s)) << s.error().message;
  ASSERT_EQ(s->blocks.size(), 3u);
  // t1 (slot 1) waits for b, which t2 (slot 2) took at its ordinal 0.
  EXPECT_EQ(s->blocks[0].thread, 1u);
  EXPECT_EQ(s->blocks[0].ordinal, 1u);
  EXPECT_EQ(s->blocks[0].on, BlockKind::Lock);
  EXPECT_EQ(s->blocks[0].other, 2u);
  EXPECT_EQ(s->blocks[0].otherOrdinal, 0u);
  EXPECT_EQ(s->blocks[0].ref, replay::kRoot);
  EXPECT_EQ(s->blocks[1].other, 3u);
  EXPECT_EQ(s->blocks[2].other, 1u);
  // The holder's acquisition must take the requested lock...
  auto wrong = replay::deadlockSchedule(idx, events({0, 1, 2, 3, 4, 5}),
                                        {{6, BlockKind::Lock, 3}}, src);
  ASSERT_FALSE(static_cast<bool>(wrong));
  EXPECT_EQ(wrong.error().message,
            "deadlock: thread t1 (event 6, blocked on lock) waits for another "
            "lock than event 3 acquires");
  // ... and be a step of the witness.
  auto late = replay::deadlockSchedule(idx, events({0, 1, 2, 3, 5}),
                                       {{6, BlockKind::Lock, 4}}, src);
  ASSERT_FALSE(static_cast<bool>(late));
  EXPECT_EQ(late.error().message,
            "deadlock: thread t1 (event 6, blocked on lock) waits for a lock "
            "its holder takes at event 4, which is not a step of the witness");
}

// test/inputs/deadlock/nested_monitor.rpt.txt: t1 waits on c holding l,
// t2 needs l before it signals, t0 joins t1.
const char *kNestedMonitor = R"(t0 fork t1
t0 fork t2
t2 acq l @n.c:20
t2 rel l
t1 acq l @n.c:10
t1 acq m @n.c:11
t2 acq m
t2 signal c
t2 rel m
t1 wait c m <- 7 @n.c:12
t1 rel m
t1 rel l
t0 join t1 @n.c:30
t0 join t2
)";

TEST(ScheduleBuilder, ConditionLockAndJoinBlocks) {
  trace::Trace t = parseTrace(kNestedMonitor);
  analysis::TraceIndex idx(t);
  report::SourceText src;
  auto s = replay::deadlockSchedule(
      idx, withHalf({0, 1, 4, 5}, 9),
      {{2, BlockKind::Lock, 4}, {9, BlockKind::Notify}, {12, BlockKind::Join}},
      src);
  ASSERT_TRUE(static_cast<bool>(s)) << s.error().message;
  ASSERT_EQ(s->blocks.size(), 3u);
  const auto &lock = s->blocks[0], &cond = s->blocks[1], &join = s->blocks[2];
  EXPECT_EQ(lock.thread, 2u); // t2 has no step: blocked at its first event
  EXPECT_EQ(lock.ordinal, 0u);
  EXPECT_EQ(lock.other, 1u);
  EXPECT_EQ(lock.otherOrdinal, 0u);
  EXPECT_EQ(cond.thread, 1u);
  EXPECT_EQ(cond.ordinal, 2u);
  EXPECT_EQ(cond.kind, trace::EventKind::Wait);
  EXPECT_EQ(cond.on, BlockKind::Notify);
  EXPECT_EQ(cond.ref, 4u); // its own release half names the condition
  EXPECT_EQ(cond.loc.line, 12u);
  EXPECT_EQ(join.thread, 0u);
  EXPECT_EQ(join.ordinal, 2u);
  EXPECT_EQ(join.other, 1u);
  EXPECT_EQ(join.ref, replay::kRoot);
}

TEST(ScheduleBuilder, NeverCreatedThreadNamesItsCreator) {
  // test/inputs/deadlock/not_created.rpt.txt.
  trace::Trace t = parseTrace(R"(t0 fork t1
t0 acq m @c.c:3
t0 fork t2
t0 rel m
t2 wr x 1
t1 acq m
t1 join t2 @c.c:9
t1 rel m
)");
  analysis::TraceIndex idx(t);
  report::SourceText src;
  auto s = replay::deadlockSchedule(idx, events({0, 5}),
                                    {{1, BlockKind::Lock, 5},
                                     {4, BlockKind::NotCreated},
                                     {6, BlockKind::Join}},
                                    src);
  ASSERT_TRUE(static_cast<bool>(s)) << s.error().message;
  const auto &nc = s->blocks[1];
  EXPECT_EQ(nc.thread, 2u);
  EXPECT_EQ(nc.on, BlockKind::NotCreated);
  EXPECT_EQ(nc.kind, trace::EventKind::Begin);
  EXPECT_EQ(nc.ordinal, 0u);
  EXPECT_EQ(nc.other, 0u);
  EXPECT_EQ(s->blocks[2].other, 2u); // t1 joins the never-created t2
  // Main is always created.
  auto mainNc = replay::deadlockSchedule(idx, events({0, 5}),
                                         {{1, BlockKind::NotCreated}}, src);
  ASSERT_FALSE(static_cast<bool>(mainNc));
  EXPECT_EQ(mainNc.error().message,
            "deadlock: thread t0 (event 1, blocked on not-created) cannot be "
            "the main thread");
}

TEST(ScheduleBuilder, SemaphoreAndBarrierNameAStepOnTheirObject) {
  trace::Trace sem = parseTrace(R"(t0 seminit s 0
t0 fork t1
t0 post s
t1 semwait s @s.c:5
t1 post s
t0 semwait s
t0 join t1
)");
  analysis::TraceIndex si(sem);
  report::SourceText src;
  auto s = replay::deadlockSchedule(
      si, events({0, 1, 2, 5}),
      {{3, BlockKind::Semaphore}, {6, BlockKind::Join}}, src);
  ASSERT_TRUE(static_cast<bool>(s)) << s.error().message;
  EXPECT_EQ(s->blocks[0].ref, 3u); // t0's semwait, the latest step on s
  EXPECT_EQ(s->blocks[0].ordinal, 0u);
  EXPECT_EQ(s->blocks[1].ordinal, 4u);
  // Without a step on the semaphore the runtime could not identify it.
  auto none = replay::deadlockSchedule(si, events({1}),
                                       {{3, BlockKind::Semaphore}}, src);
  ASSERT_FALSE(static_cast<bool>(none));
  EXPECT_EQ(none.error().message,
            "deadlock: thread t1 (event 3, blocked on semaphore) waits on s, "
            "which no step of the witness operates on: the replay could not "
            "tell it from another one");
  // A blocking kind that does not fit the event.
  auto kind = replay::deadlockSchedule(si, events({0, 1, 2, 5}),
                                       {{3, BlockKind::Barrier}}, src);
  ASSERT_FALSE(static_cast<bool>(kind));
  EXPECT_EQ(kind.error().message,
            "deadlock: thread t1 (event 3, blocked on barrier) is not a "
            "barrier");

  trace::Trace bar = parseTrace(R"(t0 fork t1
t0 fork t2
t1 acq m
t1 rel m
t1 barrier b 2
t2 acq m
t2 barrier b 2 @b.c:7
t2 rel m
t0 join t1
t0 join t2
)");
  analysis::TraceIndex bi(bar);
  auto b = replay::deadlockSchedule(
      bi, withHalf({0, 1, 5}, 6),
      {{2, BlockKind::Lock, 5}, {6, BlockKind::Barrier}, {8, BlockKind::Join}},
      src);
  ASSERT_TRUE(static_cast<bool>(b)) << b.error().message;
  EXPECT_EQ(b->blocks[1].thread, 2u);
  EXPECT_EQ(b->blocks[1].ordinal, 1u);
  EXPECT_EQ(b->blocks[1].ref, 3u); // its own arrival half
  EXPECT_EQ(b->blocks[0].other, 2u);
}

TEST(ScheduleBuilder, BlocksFromFindingReasons) {
  analysis::BlockReason lock, sem;
  lock.event = 7;
  lock.kind = BlockKind::Lock;
  lock.since = 3;
  sem.event = 9;
  sem.kind = BlockKind::Semaphore;
  sem.since = 4; // only locks carry an acquisition
  auto b = replay::deadlockBlocks({lock, sem});
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].event, 7u);
  EXPECT_EQ(b[0].heldSince, 3u);
  EXPECT_EQ(b[1].kind, BlockKind::Semaphore);
  EXPECT_EQ(b[1].heldSince, analysis::kNone);
}

} // namespace
