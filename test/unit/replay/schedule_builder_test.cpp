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
                                    {{6, 3}, {7, 4}, {8, 5}}, src);
  ASSERT_TRUE(static_cast<bool>(s)) << s.error().message;
  ASSERT_EQ(s->requests.size(), 3u);
  // t1 (slot 1) waits for b, which t2 (slot 2) took at its ordinal 0.
  EXPECT_EQ(s->requests[0].thread, 1u);
  EXPECT_EQ(s->requests[0].ordinal, 1u);
  EXPECT_EQ(s->requests[0].holder, 2u);
  EXPECT_EQ(s->requests[0].holderOrdinal, 0u);
  EXPECT_EQ(s->requests[1].holder, 3u);
  EXPECT_EQ(s->requests[2].holder, 1u);
  auto bad = replay::deadlockSchedule(idx, events({0, 1, 2, 3, 4}),
                                      {{6, 3}, {7, 4}}, src);
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_EQ(bad.error().message,
            "no thread of the deadlock holds the lock that event 7 requests");
}

} // namespace
