//===- recording_stop_test.cpp - The STOP block and its text lines --------===//
//
// trace/format.h STOP, trace/recording_stop.h: why a recording stopped
// early and the threads blocked then. The runtime writes it (exact bytes
// below, as trace_writer.cpp encodes them); the reader binds its keys to
// the names events use; text and binary round-trip it; a malformed block is
// an error naming the file and byte, a cut one is dropped with the cut.
//
#include "binary_builder.h"
#include "trace_test_util.h"

using namespace racepredict::trace;
using namespace racepredict::trace::test;

namespace {

using B = BinaryBuilder;

constexpr const char *kDeadlock = R"(t0 begin
t0 fork t1 @a.c:3:5@main
t1 begin
t1 acq m @a.c:10@worker
t0 acq n @a.c:4@main
stop deadlock 3000
blocked t0 acq m @a.c:5:3@main
blocked t1 acq n @a.c:11@worker
)";

/// Thread `key`'s sources 1 (a.c:10 in worker) and its blocked entry.
std::string sources() {
  return B::varints({1, 3}) + "a.c" + B::varints({10, 0, 6}) + "worker" +
         B::varints({0});
}

} // namespace

TEST(RecordingStop, RuntimeBlockBindsKeysToTheEventsNames) {
  // Thread 7 took lock 0x40 and waits for lock 0x48, which thread 9 holds
  // (its acquisition is the event of thread 9): as the watchdog writes it.
  std::string t7 = B::rec(RP_BEGIN, {}) + B::rec(RP_ACQUIRE, {0x40});
  std::string t9 = B::rec(RP_BEGIN, {}) + B::rec(RP_ACQUIRE, {0x48});
  std::string stop = B::varints({RP_STOP_DEADLOCK, 250, 0, 2}) +
                     B::varints({7, RP_ACQUIRE, 0x48, 1}) +
                     B::varints({9, RP_JOIN, 7, 0});
  auto t = fromBinary(B(4).block(RP_BLOCK_SOURCES, sources())
                          .events(7, 1, 2, t7)
                          .events(9, 3, 2, t9)
                          .block(RP_BLOCK_STOP, stop)
                          .end()
                          .bytes());
  ASSERT_TRUE(static_cast<bool>(t)) << t.error().message;
  ASSERT_TRUE(t->stop.has_value());
  EXPECT_EQ(t->stop->reason, StopReason::Deadlock);
  EXPECT_EQ(t->stop->value, 250u);
  ASSERT_EQ(t->stop->blocked.size(), 2u);
  const BlockedThread &a = t->stop->blocked[0], &b = t->stop->blocked[1];
  EXPECT_EQ(t->threadName(a.thread), "t7");
  EXPECT_EQ(a.op, EventKind::Acquire);
  // The lock thread 9's event took: one object, one name.
  EXPECT_EQ(a.object, t->events[3].obj);
  EXPECT_EQ(t->sources[a.loc].str(), "a.c:10");
  EXPECT_EQ(t->threadName(b.thread), "t9");
  EXPECT_EQ(b.op, EventKind::Join);
  EXPECT_EQ(t->threadName(b.object), "t7");
  EXPECT_EQ(b.loc, 0u);
}

TEST(RecordingStop, TextAndBinaryRoundTrip) {
  Trace t = parseText(kDeadlock);
  ASSERT_TRUE(t.stop.has_value());
  EXPECT_EQ(toText(t), toText(parseText(toText(t))));
  auto b = fromBinary(toBinary(t));
  ASSERT_TRUE(static_cast<bool>(b)) << b.error().message;
  EXPECT_EQ(toText(*b), toText(t));
  EXPECT_NE(toText(t).find("stop deadlock 3000\nblocked t0 acq m "
                           "@a.c:5:3@main\nblocked t1 acq n "
                           "@a.c:11:0@worker\n"),
            std::string::npos)
      << toText(t);
}

TEST(RecordingStop, LimitsAndSignalsHaveTheirSentence) {
  Trace t = parseText("t0 begin\nstop max_seconds 5\n");
  EXPECT_EQ(describeStop(*t.stop),
            "the recording stopped at the limit max_seconds=5 and the "
            "program was ended: the analysis covers that prefix of the run");
  t = parseText("t0 begin\nstop signal 2\n");
  EXPECT_EQ(describeStop(*t.stop),
            "the program was ended by signal 2 (SIGINT): the trace holds "
            "the run up to there");
  t = parseText("t0 begin\nstop exec 0 /bin/ls -> out.exec.rptrace\n");
  EXPECT_EQ(t.stop->text, "/bin/ls -> out.exec.rptrace");
}

TEST(RecordingStop, MalformedBlocksAndLinesAreErrors) {
  auto unknown = fromBinary(
      B(4).block(RP_BLOCK_STOP, B::varints({99, 0, 0, 0})).end().bytes());
  ASSERT_FALSE(static_cast<bool>(unknown));
  EXPECT_EQ(unknown.error().message,
            "test.rptrace: byte 24 (after 0 events): unknown stop reason 99");
  auto notBlocking = fromBinary(
      B(4).block(RP_BLOCK_STOP,
                 B::varints({RP_STOP_DEADLOCK, 1, 0, 1, 0, RP_READ, 8, 0}))
          .end()
          .bytes());
  ASSERT_FALSE(static_cast<bool>(notBlocking));
  EXPECT_EQ(notBlocking.error().message,
            "test.rptrace: byte 24 (after 0 events): a blocked thread in a "
            "call of kind 15, which cannot block");
  std::istringstream in("t0 begin\nblocked t0 rd x\n");
  auto text = parseTextTrace(in, "x.rpt.txt");
  ASSERT_FALSE(static_cast<bool>(text));
  EXPECT_NE(text.error().message.find("x.rpt.txt:2: `blocked` takes a "
                                      "thread, a blocking op"),
            std::string::npos)
      << text.error().message;
}

TEST(RecordingStop, ACutStopBlockIsDroppedWithTheCut) {
  std::string bytes =
      B(4).events(0, 1, 1, B::rec(RP_BEGIN, {}))
          .block(RP_BLOCK_STOP, B::varints({RP_STOP_DEADLOCK, 250, 0, 1, 0}))
          .bytes();
  bytes.resize(bytes.size() - 2); // the file ends inside the block
  ReadOptions o;
  o.allowTruncated = true;
  auto t = fromBinary(bytes, o);
  ASSERT_TRUE(static_cast<bool>(t)) << t.error().message;
  EXPECT_EQ(t->events.size(), 1u);
  EXPECT_FALSE(t->stop.has_value());
}
