//===- schedule_file_test.cpp - Writer (tool) and parser (runtime) agree --===//
//
// The tool writes schedule files with replay::writeSchedule and the runtime
// reads them with rt::parseSchedule (no STL, no malloc): a round trip must
// keep every field, and every malformed file must be rejected with its line.
//
#include "schedule_file_util.h"

#include "racepredict/analysis/trace_index.h"
#include "racepredict/replay/schedule.h"

#include "../../../runtime/replay/schedule.h"
#include "racepredict/trace/format.h"

#include <cstring>
#include <sstream>

using namespace racepredict;
using racepredict::testing::parseTrace;
using racepredict::testing::testAlloc;

namespace {

const char *kHeader = "RPSCHED 1\nkind race\n";

std::string raceFile(const std::string &threadsAndSteps, int threads, int steps,
                     const std::string &tail = "race 0 1\nend\n") {
  return std::string(kHeader) + "threads " + std::to_string(threads) +
         " steps " + std::to_string(steps) + " wakes 0 requests 0\n" +
         threadsAndSteps + tail;
}

/// Two threads, t1 forked by t0; a race between t0's and t1's writes.
const char *kTwoThreads = "thread 0 - 0 t0\nthread 1 0 0 t1\n";

TEST(ScheduleFile, RoundTripKeepsEveryField) {
  trace::Trace t = parseTrace(R"(t0 begin
t0 alloc h 8
t0 fork t1 @my_file.c:3:1@main
t1 begin
t1 acq m @my_file.c:10:5@worker
t0 acq m @my_file.c:4:3@main
t0 signal c @my_file.c:5:3@main
t0 rel m @my_file.c:6:3@main
t1 wait c m <- 6 @my_file.c:11:5@worker
t1 wr x 1 @my_file.c:12:5@worker
t0 rd x 0 @my%file.c:7:3@main
)");
  analysis::TraceIndex idx(t);
  std::vector<analysis::Step> steps = {{0}, {1}, {2}, {3}, {4}, {8, true},
                                       {5}, {6}, {7}, {8}, {9}, {10}};
  report::SourceText src;
  auto s = replay::raceSchedule(idx, steps, 9, 10, src);
  ASSERT_TRUE(static_cast<bool>(s)) << s.error().message;
  std::ostringstream out;
  replay::writeSchedule(*s, out);
  Parsed p = parseText(out.str());
  ASSERT_TRUE(p.ok) << p.err.line << ": " << p.err.msg << "\n" << out.str();
  ASSERT_EQ(p.s.kind, rt::kSchedRace);
  ASSERT_EQ(p.s.numThreads, 2u);
  EXPECT_EQ(p.s.threads[0].parent, rt::kNoThread);
  EXPECT_EQ(p.s.threads[1].parent, 0u);
  EXPECT_EQ(p.s.threads[1].childOrdinal, 0u);
  EXPECT_STREQ(p.s.threads[1].name, "t1");
  // The alloc (event 1) is no scheduling point: 11 steps for 12 entries.
  ASSERT_EQ(p.s.numSteps, 11u);
  const rt::SchedStep &fork = p.s.steps[1];
  EXPECT_EQ(fork.thread, 0u);
  EXPECT_EQ(fork.ordinal, 1u); // begin is 0, the alloc does not count
  EXPECT_EQ(fork.kind, RP_FORK);
  EXPECT_STREQ(fork.file, "my_file.c");
  EXPECT_EQ(fork.line, 3u);
  EXPECT_EQ(fork.column, 1u);
  const rt::SchedStep &half = p.s.steps[4];
  EXPECT_EQ(half.kind, RP_WAIT);
  EXPECT_EQ(half.half, 1);
  EXPECT_EQ(half.thread, 1u);
  EXPECT_EQ(half.ordinal, 2u);
  const rt::SchedStep &ret = p.s.steps[8];
  EXPECT_EQ(ret.kind, RP_WAIT);
  EXPECT_EQ(ret.half, 0);
  EXPECT_EQ(ret.ordinal, 2u);
  EXPECT_EQ(ret.flags, 0); // woken by a notify
  EXPECT_STREQ(p.s.steps[10].file, "my%file.c");
  EXPECT_NE(std::strstr(p.s.steps[10].desc, "[10] t0 rd x 0"), nullptr);
  // The signal (step 6 = event 6) wakes t1's wait (its ordinal 2).
  ASSERT_EQ(p.s.numWakes, 1u);
  EXPECT_EQ(p.s.wakes[0].step, 6u);
  EXPECT_EQ(p.s.steps[6].kind, RP_SIGNAL);
  EXPECT_EQ(p.s.steps[6].wakeCount, 1u);
  EXPECT_EQ(p.s.wakes[0].thread, 1u);
  EXPECT_EQ(p.s.wakes[0].ordinal, 2u);
  EXPECT_EQ(p.s.raceFirst, 9u);
  EXPECT_EQ(p.s.raceSecond, 10u);
  EXPECT_EQ(p.s.threads[0].fullOrdinals, 6u);
  EXPECT_EQ(p.s.threads[1].fullOrdinals, 4u);
}

// Timed calls that returned after their deadline (`late`) carry the step
// flag kStepPastDeadline, next to kStepNoNotify; flags beyond both are
// rejected.
TEST(ScheduleFile, StepsPastTheirDeadlineKeepTheirFlag) {
  trace::Trace t = parseTrace(R"(t0 begin
t0 fork t1 @a.c:3:1@main
t1 begin
t1 acq m late @a.c:10:5@worker
t0 signal c @a.c:4:3@main
t1 wait c m <- 4 late @a.c:11:5@worker
t1 wait c m <- none late @a.c:12:5@worker
t1 wr x 1 @a.c:13:5@worker
t0 rd x 0 @a.c:7:3@main
)");
  analysis::TraceIndex idx(t);
  std::vector<analysis::Step> steps = {{0}, {1},       {2}, {3}, {5, true}, {4},
                                       {5}, {6, true}, {6}, {7}, {8}};
  report::SourceText src;
  auto s = replay::raceSchedule(idx, steps, 7, 8, src);
  ASSERT_TRUE(static_cast<bool>(s)) << s.error().message;
  std::ostringstream out;
  replay::writeSchedule(*s, out);
  Parsed p = parseText(out.str());
  ASSERT_TRUE(p.ok) << p.err.line << ": " << p.err.msg << "\n" << out.str();
  ASSERT_EQ(p.s.numSteps, 11u);
  std::vector<int> flags;
  for (uint32_t i = 0; i < p.s.numSteps; ++i)
    flags.push_back(p.s.steps[i].flags);
  EXPECT_EQ(flags, (std::vector<int>{0, 0, 0, rt::kStepPastDeadline, 0, 0,
                                     rt::kStepPastDeadline, 0,
                                     rt::kStepPastDeadline | rt::kStepNoNotify,
                                     0, 0}));
  std::string bad = out.str();
  size_t at = bad.find(" 3 12 5 ");
  ASSERT_NE(at, std::string::npos) << bad;
  bad.replace(at, 3, " 4 ");
  Parsed q = parseText(bad);
  EXPECT_FALSE(q.ok);
  EXPECT_STREQ(q.err.msg, "unknown step flags");
}

TEST(ScheduleFile, RacingFreeIsAStepWithoutAnOrdinal) {
  // t0 frees the block t1 is about to write (a use-after-free): the free is
  // the first racing step; t0's other free is no step.
  trace::Trace t = parseTrace(R"(t0 begin
t0 alloc 0x10 8
t0 fork t1 @a.c:3:1@main
t1 begin
t0 free 0x40 8 @a.c:4:3@main
t0 free 0x10 8 @a.c:5:3@main
t1 wr 0x10 1 @a.c:9:5@worker
)");
  analysis::TraceIndex idx(t);
  std::vector<analysis::Step> steps = {{0}, {1}, {2}, {3}, {4}, {5}, {6}};
  report::SourceText src;
  auto s = replay::raceSchedule(idx, steps, 5, 6, src);
  ASSERT_TRUE(static_cast<bool>(s)) << s.error().message;
  std::ostringstream out;
  replay::writeSchedule(*s, out);
  Parsed p = parseText(out.str());
  ASSERT_TRUE(p.ok) << p.err.line << ": " << p.err.msg << "\n" << out.str();
  ASSERT_EQ(p.s.numSteps, 5u); // begin, fork, begin, the free, the write
  const rt::SchedStep &f = p.s.steps[3];
  EXPECT_EQ(f.kind, RP_FREE);
  EXPECT_EQ(f.thread, 0u);
  EXPECT_EQ(f.ordinal, 2u); // before t0's third event, taking no ordinal
  EXPECT_EQ(f.line, 5u);
  EXPECT_EQ(p.s.raceFirst, 3u);
  EXPECT_EQ(p.s.threads[0].fullOrdinals, 2u);
}

TEST(ScheduleFile, VersionOneRequestsAreStillRead) {
  std::string text = "RPSCHED 1\nkind deadlock\n"
                     "threads 2 steps 2 wakes 0 requests 2\n"
                     "thread 0 - 0 t0\nthread 1 0 0 t1\n"
                     "step 0 0 acq 0 0 1 1 f.c -\n"
                     "step 1 0 acq 0 0 5 1 f.c -\n"
                     "request 0 1 acq 2 1 f.c 1 0 t0%20wants%20b\n"
                     "request 1 1 racq 6 1 f.c 0 0 -\nend\n";
  Parsed p = parseText(text);
  ASSERT_TRUE(p.ok) << p.err.line << ": " << p.err.msg;
  EXPECT_EQ(p.s.version, 1u);
  ASSERT_EQ(p.s.numBlocks, 2u);
  EXPECT_EQ(p.s.blocks[0].on, rt::kOnLock);
  EXPECT_EQ(p.s.blocks[0].other, 1u);
  EXPECT_EQ(p.s.blocks[0].otherOrdinal, 0u);
  EXPECT_EQ(p.s.blocks[0].ref, rt::kNoThread);
  EXPECT_STREQ(p.s.blocks[0].desc, "t0 wants b");
  EXPECT_EQ(p.s.blocks[1].kind, RP_RACQUIRE);
  // A version 1 file has no `block` lines, version 2 no `request` lines.
  std::string mixed = text;
  mixed.replace(mixed.find("request 1 1"), 7, "block");
  EXPECT_FALSE(parseText(mixed).ok);
}

TEST(ScheduleFile, StringsWithSpacesAndEscapesSurvive) {
  replay::Schedule s;
  s.threads.push_back({replay::kRoot, 0, "main thread", 0});
  s.threads.push_back({0, 0, "-", 1});
  replay::ScheduleStep a, b;
  a.kind = b.kind = trace::EventKind::Write;
  a.loc.file = "dir with space/a%b.c";
  a.loc.line = 7;
  a.desc = "t0 wr x 1 | x = 1; // 100%";
  b.thread = 1;
  b.loc.file = "";
  s.steps = {a, b};
  std::ostringstream out;
  replay::writeSchedule(s, out);
  Parsed p = parseText(out.str());
  ASSERT_TRUE(p.ok) << p.err.line << ": " << p.err.msg << "\n" << out.str();
  EXPECT_STREQ(p.s.threads[0].name, "main thread");
  EXPECT_STREQ(p.s.threads[1].name, "-");
  EXPECT_STREQ(p.s.steps[0].file, "dir with space/a%b.c");
  EXPECT_STREQ(p.s.steps[0].desc, "t0 wr x 1 | x = 1; // 100%");
  EXPECT_STREQ(p.s.steps[1].file, "");
  EXPECT_STREQ(p.s.steps[1].desc, "");
}

TEST(ScheduleFile, EncodeField) {
  EXPECT_EQ(replay::encodeField(""), "-");
  EXPECT_EQ(replay::encodeField("-"), "%2D");
  EXPECT_EQ(replay::encodeField("a b%c\n"), "a%20b%25c%0A");
  EXPECT_EQ(replay::encodeField("x-y"), "x-y");
}

TEST(ScheduleFile, RejectsMalformedFilesWithTheirLine) {
  std::string steps2 = "step 0 0 wr 0 0 1 1 f.c -\nstep 1 0 wr 0 0 2 1 f.c -\n";
  const BadCase cases[] = {
      {"no header", "hello\n", 1, "not a racepredict schedule file"},
      {"version", "RPSCHED 3\n", 1, "unsupported schedule version"},
      {"kind", "RPSCHED 1\nkind livelock\n", 2, "unknown schedule kind"},
      {"counts",
       std::string(kHeader) + "threads 1 steps x wakes 0 requests 0\n", 3,
       "expected a number, got 'x'"},
      {"thread order", raceFile("thread 1 - 0 t1\n", 1, 0), 4,
       "threads must be listed in index order"},
      {"parent after child",
       raceFile("thread 0 - 0 t0\nthread 1 2 0 t1\n", 2, 0), 5,
       "a thread's parent must be listed before it"},
      {"same path",
       raceFile("thread 0 - 0 t0\nthread 1 0 0 t1\nthread 2 0 0 t2\n", 3, 0), 6,
       "two threads have the same creation path"},
      {"unknown kind",
       raceFile(std::string(kTwoThreads) + "step 0 0 jump 0 0 1 1 f.c -\n", 2,
                1),
       6, "unknown event kind 'jump'"},
      {"undeclared thread",
       raceFile(std::string(kTwoThreads) + "step 2 0 wr 0 0 1 1 f.c -\n", 2, 1),
       6, "step of an undeclared thread"},
      {"half of a write",
       raceFile(std::string(kTwoThreads) + "step 0 0 wr 1 0 1 1 f.c -\n", 2, 1),
       6, "only wait and barrier steps have a first half"},
      {"alloc step",
       raceFile(std::string(kTwoThreads) + "step 0 0 alloc 0 0 1 1 f.c -\n", 2,
                1),
       6, "alloc events are not scheduling points"},
      {"free before the racing pair",
       raceFile(std::string(kTwoThreads) + "step 0 0 free 0 0 1 1 f.c -\n" +
                    steps2,
                2, 3, "race 1 2\nend\n"),
       9, "a free is a step only as one of a race's racing pair"},
      {"ordinal gap",
       raceFile(std::string(kTwoThreads) + "step 0 1 wr 0 0 1 1 f.c -\n"
                                           "step 1 0 wr 0 0 2 1 f.c -\n",
                2, 2),
       0, "the steps of a thread must follow its events in program order"},
      {"bad escape",
       raceFile(std::string(kTwoThreads) + "step 0 0 wr 0 0 1 1 f%2 -\n", 2, 1),
       6, "bad percent escape in 'f%2'"},
      {"race not last",
       raceFile(std::string(kTwoThreads) + steps2, 2, 2, "race 0 0\nend\n"), 8,
       "the racing steps must be the last two steps"},
      {"race same thread",
       raceFile(std::string(kTwoThreads) + "step 0 0 wr 0 0 1 1 f.c -\n"
                                           "step 0 1 wr 0 0 2 1 f.c -\n",
                2, 2),
       8, "the racing steps must be of different threads"},
      {"race of a lock",
       raceFile(std::string(kTwoThreads) + "step 0 0 acq 0 0 1 1 f.c -\n"
                                           "step 1 0 wr 0 0 2 1 f.c -\n",
                2, 2),
       8, "a racing step must be a memory access or a free"},
      {"text after end",
       raceFile(std::string(kTwoThreads) + steps2, 2, 2, "race 0 1\nend\nx\n"),
       10, "text after 'end'"},
      {"truncated", raceFile(std::string(kTwoThreads) + steps2, 2, 2, ""), 7,
       "unexpected end of file, expected 'race'"},
  };
  for (const auto &c : cases) {
    Parsed p = parseText(c.text);
    EXPECT_FALSE(p.ok) << c.name;
    EXPECT_EQ(p.err.line, c.line) << c.name;
    EXPECT_NE(std::strstr(p.err.msg, c.msg), nullptr)
        << c.name << ": got '" << p.err.msg << "'";
  }
}

TEST(ScheduleFile, RejectsRequestsThatAreNotNextEvents) {
  std::string text = "RPSCHED 1\nkind deadlock\n"
                     "threads 2 steps 1 wakes 0 requests 2\n"
                     "thread 0 - 0 t0\nthread 1 0 0 t1\n"
                     "step 0 0 acq 0 0 1 1 f.c -\n"
                     "request 0 3 acq 2 1 f.c 1 0 -\n"
                     "request 1 0 acq 2 1 f.c 0 0 -\nend\n";
  Parsed p = parseText(text);
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.err.line, 7u);
  EXPECT_STREQ(p.err.msg, "a request must be its thread's next event after the "
                          "schedule");
}

TEST(ScheduleFile, ViolationRoundTripWithCustomSteps) {
  // Custom events are scheduling points: a violation's steps are mostly
  // custom events, and their ordinals count like any recorded event.
  trace::Trace t = parseTrace(R"(t0 begin
t0 fork t1 @v.c:3
t1 begin
t0 ev close f1 @v.c:4
t1 ev read f1 @v.c:9
)");
  analysis::TraceIndex idx(t);
  report::SourceText src;
  auto s = replay::violationSchedule(
      idx, {{0, false}, {1, false}, {2, false}, {3, false}, {4, false}}, src);
  ASSERT_TRUE(static_cast<bool>(s)) << s.error().message;
  std::ostringstream out;
  replay::writeSchedule(*s, out);
  EXPECT_NE(out.str().find("kind violation\n"), std::string::npos);
  Parsed p = parseText(out.str());
  ASSERT_TRUE(p.ok) << p.err.msg;
  EXPECT_EQ(p.s.kind, rt::kSchedViolation);
  ASSERT_EQ(p.s.numSteps, 5u);
  EXPECT_EQ(p.s.steps[3].kind, RP_CUSTOM);
  EXPECT_EQ(p.s.steps[3].ordinal, 2u); // begin, fork, then the event
  EXPECT_EQ(p.s.steps[4].kind, RP_CUSTOM);
  EXPECT_EQ(p.s.steps[4].thread, 1u);
  EXPECT_EQ(p.s.steps[4].line, 9u);
}

TEST(ScheduleFile, RejectsMalformedViolationSchedules) {
  std::string head = "RPSCHED 2\nkind violation\n";
  Parsed none = parseText(head + "threads 1 steps 0 wakes 0 blocks 0\n"
                                 "thread 0 - 0 t0\nend\n");
  EXPECT_FALSE(none.ok);
  EXPECT_NE(std::strstr(none.err.msg, "a violation schedule has steps"),
            nullptr)
      << none.err.msg;
  Parsed blocks = parseText(head + "threads 1 steps 1 wakes 0 blocks 1\n"
                                   "thread 0 - 0 t0\n"
                                   "step 0 0 ev 0 0 1 1 f.c -\nend\n");
  EXPECT_FALSE(blocks.ok);
  EXPECT_EQ(blocks.err.line, 3u);
}

TEST(ScheduleFile, KindMnemonicsMatchTheTraceFormat) {
  for (int k = 0; k < trace::kNumEventKinds; ++k) {
    const char *m = trace::opName(static_cast<trace::EventKind>(k));
    EXPECT_EQ(rt::kindFromMnemonic(m, std::strlen(m)), k) << m;
    EXPECT_STREQ(rt::kindMnemonic(k), m);
  }
  EXPECT_EQ(rt::kindFromMnemonic("acqx", 4), -1);
  EXPECT_EQ(rt::kindFromMnemonic("ac", 2), -1);
}

} // namespace
