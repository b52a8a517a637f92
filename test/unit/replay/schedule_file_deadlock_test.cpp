//===- schedule_file_deadlock_test.cpp - Deadlock schedules round trip ---===//
//
// A deadlock's schedule file (the tool's replay::deadlockSchedule and
// writeSchedule, the runtime's rt::parseSchedule): every blocking kind
// round-trips, and malformed block lines are rejected with their line.
//
#include "schedule_file_util.h"

#include "racepredict/analysis/trace_index.h"
#include "racepredict/replay/schedule.h"
#include "racepredict/trace/format.h"

#include <cstring>
#include <sstream>

using namespace racepredict;
using racepredict::testing::parseTrace;

namespace {

TEST(ScheduleFile, DeadlockRoundTrip) {
  trace::Trace t = parseTrace(R"(t0 fork t1
t0 fork t2
t1 acq a @d.c:5
t1 acq b @d.c:6
t1 rel b
t1 rel a
t2 acq b @d.c:12
t2 acq a @d.c:13
t2 rel a
t2 rel b
)");
  analysis::TraceIndex idx(t);
  report::SourceText src;
  auto s = replay::deadlockSchedule(
      idx, {{0}, {1}, {2}, {6}},
      {{3, analysis::BlockKind::Lock, 6}, {7, analysis::BlockKind::Lock, 2}},
      src);
  ASSERT_TRUE(static_cast<bool>(s)) << s.error().message;
  std::ostringstream out;
  replay::writeSchedule(*s, out);
  EXPECT_EQ(out.str().rfind("RPSCHED 2\n", 0), 0u);
  Parsed p = parseText(out.str());
  ASSERT_TRUE(p.ok) << p.err.line << ": " << p.err.msg << "\n" << out.str();
  ASSERT_EQ(p.s.kind, rt::kSchedDeadlock);
  EXPECT_EQ(p.s.version, 2u);
  ASSERT_EQ(p.s.numBlocks, 2u);
  // t1 requests b (its ordinal 1), held by t2 since its ordinal 0.
  const rt::SchedBlock &b0 = p.s.blocks[0];
  EXPECT_EQ(b0.thread, 1u);
  EXPECT_EQ(b0.ordinal, 1u);
  EXPECT_EQ(b0.kind, RP_ACQUIRE);
  EXPECT_EQ(b0.on, rt::kOnLock);
  EXPECT_EQ(b0.halfDone, 0);
  EXPECT_EQ(b0.other, 2u);
  EXPECT_EQ(b0.otherOrdinal, 0u);
  EXPECT_EQ(b0.ref, rt::kNoThread);
  EXPECT_EQ(b0.line, 6u);
  EXPECT_STREQ(b0.file, "d.c");
  EXPECT_NE(std::strstr(b0.desc, "[3] t1 acq b"), nullptr);
  EXPECT_EQ(p.s.blocks[1].thread, 2u);
  EXPECT_EQ(p.s.blocks[1].other, 1u);
}

TEST(ScheduleFile, EveryBlockingKindRoundTrips) {
  // A nested monitor (condition + lock + join) and a never-created thread
  // whose creator waits at a barrier, and a semaphore.
  trace::Trace t = parseTrace(R"(t0 begin
t0 seminit s 0 @k.c:1
t0 fork t1 @k.c:2
t0 fork t2 @k.c:3
t0 fork t3 @k.c:4
t2 begin
t2 acq l @k.c:20
t2 rel l
t1 begin
t1 acq l @k.c:10
t1 acq m @k.c:11
t2 signal c
t1 wait c m <- 11 @k.c:12
t3 begin
t3 barrier b 2 @k.c:30
t3 fork t4 @k.c:31
t4 begin
t0 semwait s @k.c:5
t0 join t1 @k.c:6
)");
  analysis::TraceIndex idx(t);
  report::SourceText src;
  using analysis::BlockKind;
  std::vector<analysis::Step> steps = {{0},  {1},  {2},        {3},
                                       {4},  {5},  {8},        {9},
                                       {10}, {13}, {14, true}, {12, true}};
  auto s = replay::deadlockSchedule(idx, steps,
                                    {{17, BlockKind::Semaphore},
                                     {12, BlockKind::Notify},
                                     {6, BlockKind::Lock, 9},
                                     {14, BlockKind::Barrier},
                                     {16, BlockKind::NotCreated}},
                                    src);
  ASSERT_TRUE(static_cast<bool>(s)) << s.error().message;
  std::ostringstream out;
  replay::writeSchedule(*s, out);
  Parsed p = parseText(out.str());
  ASSERT_TRUE(p.ok) << p.err.line << ": " << p.err.msg << "\n" << out.str();
  ASSERT_EQ(p.s.numBlocks, 5u);
  const rt::SchedBlock &sem = p.s.blocks[0], &cond = p.s.blocks[1],
                       &lock = p.s.blocks[2], &bar = p.s.blocks[3],
                       &nc = p.s.blocks[4];
  EXPECT_EQ(sem.on, rt::kOnSemaphore);
  EXPECT_EQ(sem.kind, RP_SEMWAIT);
  EXPECT_EQ(sem.thread, 0u);
  EXPECT_EQ(sem.ordinal, 5u);
  EXPECT_EQ(sem.ref, 1u); // the seminit
  EXPECT_EQ(sem.other, rt::kNoThread);
  EXPECT_EQ(cond.on, rt::kOnCondition);
  EXPECT_EQ(cond.thread, 1u);
  EXPECT_EQ(cond.ordinal, 3u);
  EXPECT_EQ(cond.halfDone, 1);
  EXPECT_EQ(cond.ref, 11u); // its release half
  EXPECT_EQ(p.s.steps[11].half, 1);
  EXPECT_EQ(lock.on, rt::kOnLock);
  EXPECT_EQ(lock.thread, 2u);
  EXPECT_EQ(lock.ordinal, 1u);
  EXPECT_EQ(lock.other, 1u);
  EXPECT_EQ(lock.otherOrdinal, 1u);
  EXPECT_EQ(bar.on, rt::kOnBarrier);
  EXPECT_EQ(bar.kind, RP_BARRIER);
  EXPECT_EQ(bar.ordinal, 1u);
  EXPECT_EQ(bar.ref, 10u);
  EXPECT_EQ(bar.line, 30u);
  EXPECT_EQ(nc.on, rt::kOnNotCreated);
  EXPECT_EQ(nc.kind, RP_BEGIN);
  EXPECT_EQ(nc.thread, 4u);
  EXPECT_EQ(nc.ordinal, 0u);
  EXPECT_EQ(nc.other, 3u);
  EXPECT_STREQ(nc.file, "");
}

/// A version 2 deadlock file: t0 created t1 and t2 and took a lock (step
/// 3), t1 took a lock and arrived at a barrier; then the block lines.
std::string deadlockFile(const std::string &blocks, int n) {
  return "RPSCHED 2\nkind deadlock\nthreads 4 steps 6 wakes 0 blocks " +
         std::to_string(n) +
         "\nthread 0 - 0 t0\nthread 1 0 0 t1\nthread 2 0 1 t2\n"
         "thread 3 1 0 t3\n"
         "step 0 0 begin 0 0 0 0 - -\nstep 0 1 fork 0 0 1 1 f.c -\n"
         "step 0 2 fork 0 0 2 1 f.c -\nstep 0 3 acq 0 0 3 1 f.c -\n"
         "step 1 0 acq 0 0 4 1 f.c -\nstep 1 1 barrier 1 0 5 1 f.c -\n" +
         blocks + "end\n";
}

TEST(ScheduleFile, AcceptsWellFormedBlocks) {
  // t1 at its barrier (arrival done), t0 joining t1, t2 blocked at its
  // first event on t0's lock, t3 never created by t1.
  Parsed p =
      parseText(deadlockFile("block 1 1 barrier barrier 5 1 f.c - - 5 -\n"
                             "block 0 4 join join 6 1 f.c 1 - - -\n"
                             "block 2 0 acq lock 7 1 f.c 0 3 - -\n"
                             "block 3 0 begin not-created 0 0 - 1 - - -\n",
                             4));
  ASSERT_TRUE(p.ok) << p.err.line << ": " << p.err.msg;
  EXPECT_EQ(p.s.blocks[0].halfDone, 1);
  EXPECT_EQ(p.s.blocks[3].on, rt::kOnNotCreated);
}

TEST(ScheduleFile, RejectsMalformedBlocks) {
  const BadCase cases[] = {
      {"unknown on",
       deadlockFile("block 1 1 barrier livelock 5 1 f.c - - 5 -\n", 1), 14,
       "unknown blocking kind 'livelock'"},
      {"kind does not fit",
       deadlockFile("block 1 1 barrier semaphore 5 1 f.c - - 5 -\n", 1), 14,
       "the blocked event's kind does not fit its blocking kind 'semaphore'"},
      {"not the next event",
       deadlockFile("block 0 3 join join 6 1 f.c 1 - - -\n"
                    "block 1 1 barrier barrier 5 1 f.c - - 5 -\n",
                    2),
       14,
       "a blocked event must be its thread's next event after the schedule"},
      {"half not done",
       deadlockFile("block 0 4 wait condition 6 1 f.c - - 3 -\n", 1), 14,
       "a blocked wait or barrier must be its thread's next event after the "
       "schedule, with its first half the thread's last step"},
      {"two blocks of a thread",
       deadlockFile("block 1 1 barrier barrier 5 1 f.c - - 5 -\n"
                    "block 1 1 barrier barrier 5 1 f.c - - 5 -\n",
                    2),
       15, "two blocks of one thread"},
      {"lock without holder",
       deadlockFile("block 2 0 acq lock 7 1 f.c - - - -\n", 1), 14,
       "this blocking kind needs the other thread"},
      {"holder never acquired",
       deadlockFile("block 2 0 acq lock 7 1 f.c 0 2 - -\n", 1), 14,
       "a lock's holder must have acquired it in a step of the schedule"},
      {"join of itself",
       deadlockFile("block 0 4 join join 6 1 f.c 0 - - -\n", 1), 14,
       "a block names an undeclared thread or itself"},
      {"semaphore without object step",
       deadlockFile("block 2 0 semwait semaphore 7 1 f.c - - - -\n", 1), 14,
       "this blocking kind needs a step on its object"},
      {"object step of another kind",
       deadlockFile("block 2 0 semwait semaphore 7 1 f.c - - 3 -\n", 1), 14,
       "the object step of a block must be a step on an object of its kind"},
      {"object step out of range",
       deadlockFile("block 2 0 semwait semaphore 7 1 f.c - - 6 -\n", 1), 14,
       "the object step of a block must be a step on an object of its kind"},
      {"not-created with steps",
       deadlockFile("block 1 0 begin not-created 0 0 - 0 - - -\n", 1), 14,
       "a thread that is never created can have no steps"},
      {"not-created, wrong creator",
       deadlockFile("block 3 0 begin not-created 0 0 - 0 - - -\n", 1), 14,
       "a thread that is never created must name its creator"},
      {"join of a thread that is not blocked",
       deadlockFile("block 0 4 join join 6 1 f.c 1 - - -\n", 1), 0,
       "a blocked join's thread must be blocked too"},
      {"creator not blocked",
       deadlockFile("block 3 0 begin not-created 0 0 - 1 - - -\n", 1), 0,
       "a never-created thread's creator must be blocked"},
      {"no blocks", deadlockFile("", 0), 3, "a deadlock schedule needs blocks"},
      {"fields", deadlockFile("block 2 0 acq lock 7 1 f.c 0 3 -\n", 1), 14,
       "wrong number of fields on the line starting with 'block'"},
  };
  for (const auto &c : cases) {
    Parsed p = parseText(c.text);
    EXPECT_FALSE(p.ok) << c.name;
    EXPECT_EQ(p.err.line, c.line) << c.name << ": " << p.err.msg;
    EXPECT_NE(std::strstr(p.err.msg, c.msg), nullptr)
        << c.name << ": got '" << p.err.msg << "'";
  }
}

TEST(ScheduleFile, BlockingKindNamesMatchTheAnalysis) {
  using analysis::BlockKind;
  for (BlockKind k :
       {BlockKind::Lock, BlockKind::Join, BlockKind::NotCreated,
        BlockKind::Notify, BlockKind::Semaphore, BlockKind::Barrier}) {
    const char *n = analysis::blockKindName(k);
    uint8_t on = rt::blockOnFromName(n, std::strlen(n));
    EXPECT_NE(on, 0) << n;
    EXPECT_STREQ(rt::blockOnName(on), n);
  }
  EXPECT_EQ(rt::blockOnFromName("locks", 5), 0);
}

} // namespace
