//===- binary_v4_test.cpp - Format v4: implicit seqs, renaming ------------===//
//
// Format v4 (format.h) carries no seq in any record: a thread's events in a
// block take consecutive seqs and a segment record says how many events of
// other threads came between. Branch dependences and notifies name seqs as
// in v2. The reader also renames a location after a write the trace does
// not show (trace/hidden_writes.cpp), since the v4 order is the observed
// one. These traces are hand-made so that the file's block order disagrees
// with the seq order, and so that each rule is needed for the exact result.
//
#include "binary_builder.h"
#include "trace_test_util.h"

#include "racepredict/trace/validate.h"

using namespace racepredict::trace;
using namespace racepredict::trace::test;

namespace {

using B = BinaryBuilder;

uint64_t zz(int64_t v) { return codec::zigzag(v); }
/// A v4 access record of `size` (1, 4 or 8) bytes: location delta, value.
std::string access(uint8_t kind, int64_t locDelta, int64_t value,
                   unsigned size = 8) {
  unsigned code = size == 1 ? RP_SIZE_1 : size == 4 ? RP_SIZE_4 : RP_SIZE_8;
  return B::rec(static_cast<uint8_t>(kind | code << RP_SIZE_SHIFT),
                {zz(locDelta), zz(value)});
}
std::string segment(uint64_t gap) { return B::rec(RP_SEGMENT, {gap}); }

/// "thread op location value" per event, in trace order.
std::vector<std::string> order(const Trace &t) {
  std::vector<std::string> out;
  for (const Event &e : t.events) {
    std::string s = t.threadName(e.thread) + " " + opName(e.kind);
    if (isAccess(e.kind))
      s += " " + t.table(NameSpace::Location).name(e.obj) + " " +
           std::to_string(e.value);
    out.push_back(s);
  }
  return out;
}

Trace read(const std::string &bytes) {
  auto t = fromBinary(bytes);
  EXPECT_TRUE(static_cast<bool>(t)) << (t ? "" : t.error().message);
  if (!t)
    return Trace{};
  expectConsistent(*t);
  return std::move(*t);
}

constexpr int64_t kX = 0x1000, kY = 0x2000;

} // namespace

TEST(BinaryV4, SegmentsInterleaveBlocksWrittenOutOfOrder) {
  // t2's block comes first in the file. t1: seqs 0, 1, then (gap 2) 4;
  // t2: its block starts at seq 2, then 3, then (gap 1) 5.
  std::string t1 = access(RP_WRITE, kX, 1) + access(RP_WRITE, 0, 2) +
                   segment(2) + access(RP_WRITE, 0, 3);
  std::string t2 = access(RP_READ, kX, 2) + access(RP_WRITE, kY - kX, 7) +
                   segment(1) + access(RP_READ, kX - kY, 3);
  Trace t = read(B(4).events(2, 2, 4, t2).events(1, 0, 4, t1).end().bytes());
  EXPECT_EQ(order(t),
            (std::vector<std::string>{"t1 wr 0x1000 1", "t1 wr 0x1000 2",
                                      "t2 rd 0x1000 2", "t2 wr 0x2000 7",
                                      "t1 wr 0x1000 3", "t2 rd 0x1000 3"}));
  EXPECT_TRUE(validateTrace(t).empty());
}

TEST(BinaryV4, SegmentAtABlockStartMovesItsFirstSeq) {
  // Both blocks claim first seq 10; t2's leading segment puts its events
  // after t1's two.
  std::string t1 = access(RP_WRITE, kX, 1) + access(RP_WRITE, 0, 2);
  std::string t2 = segment(2) + access(RP_READ, kX, 2);
  Trace t = read(B(4).events(2, 10, 2, t2).events(1, 10, 2, t1).end().bytes());
  EXPECT_EQ(order(t),
            (std::vector<std::string>{"t1 wr 0x1000 1", "t1 wr 0x1000 2",
                                      "t2 rd 0x1000 2"}));
}

TEST(BinaryV4, OverlappingSeqsAreAnError) {
  std::string t1 = access(RP_WRITE, kX, 1) + access(RP_WRITE, 0, 2);
  std::string t2 = segment(1) + access(RP_READ, kX, 2);
  auto t =
      fromBinary(B(4).events(1, 0, 2, t1).events(2, 0, 2, t2).end().bytes());
  ASSERT_FALSE(static_cast<bool>(t));
  EXPECT_EQ(t.error().message,
            "test.rptrace: two events have seq 1 (threads t1 and t2)");
}

TEST(BinaryV4, ASeqInsideAnotherThreadsRunIsAnError) {
  // Seqs are kept as runs (trace/seq_runs.h): t3's one event (seq 5) lies
  // inside t1's run 0..9, not at its start; t2's block comes first in the
  // file, so the message names the file's first event of seq 5 first.
  std::string t1, t2 = access(RP_WRITE, kY, 1), t3 = access(RP_WRITE, kY, 2);
  for (int i = 0; i < 10; ++i)
    t1 += access(RP_WRITE, i == 0 ? kX : 0, i);
  auto t = fromBinary(B(4).events(3, 5, 1, t3)
                          .events(1, 0, 10, t1)
                          .events(2, 12, 1, t2)
                          .end()
                          .bytes());
  ASSERT_FALSE(static_cast<bool>(t));
  EXPECT_EQ(t.error().message,
            "test.rptrace: two events have seq 5 (threads t3 and t1)");
}

TEST(BinaryV4, ADependenceOnASeqBetweenRunsIsAnError) {
  // t1: rd x (seq 0), then (gap 3) a branch at seq 4 on the seq 2 back:
  // seq 2, which lies between t2's run (seq 1) and t1's second run (4).
  std::string t1 =
      access(RP_READ, kX, 5) + segment(3) + B::rec(RP_BRANCH, {2, 2});
  std::string t2 = access(RP_WRITE, kY, 9);
  auto t =
      fromBinary(B(4).events(1, 0, 3, t1).events(2, 1, 1, t2).end().bytes());
  ASSERT_FALSE(static_cast<bool>(t));
  EXPECT_EQ(t.error().message, "test.rptrace: event 2: a branch depends on a "
                               "seq that no event has");
}

TEST(BinaryV4, BranchDependencesAreSeqDistances) {
  // t1: rd x (seq 0), [t2: wr y (seq 1)], rd y (seq 2), br <- 2 back (seq
  // 0) and 1 back (seq 2): event indices 0 and 2.
  std::string t1 = access(RP_READ, kX, 5) + segment(1) +
                   access(RP_READ, kY - kX, 0) + B::rec(RP_BRANCH, {3, 3, 1});
  std::string t2 = access(RP_WRITE, kY, 9);
  Trace t = read(B(4).events(1, 0, 4, t1).events(2, 1, 1, t2).end().bytes());
  ASSERT_EQ(t.events.size(), 4u);
  ASSERT_EQ(t.events[3].kind, EventKind::Branch);
  auto [b, e] = t.deps(t.events[3]);
  EXPECT_EQ(std::vector<EventId>(b, e), (std::vector<EventId>{0, 2}));
}

TEST(BinaryV4, BranchDependenceOnAnotherThreadsEventIsAnError) {
  // The dependence (1 back from seq 2) is t2's write at seq 1.
  std::string t1 =
      access(RP_READ, kX, 5) + segment(1) + B::rec(RP_BRANCH, {2, 1});
  std::string t2 = access(RP_WRITE, kY, 9);
  auto t =
      fromBinary(B(4).events(1, 0, 3, t1).events(2, 1, 1, t2).end().bytes());
  ASSERT_FALSE(static_cast<bool>(t));
  EXPECT_EQ(t.error().message,
            "test.rptrace: event 2: branch dependence 1 is not a read of "
            "thread t1");
}

TEST(BinaryV4, WaitNamesItsNotifyBySeq) {
  // t2's wait (recorded at its return, seq 3) names notify seq 1 (the
  // field is seq + 1).
  std::string t1 = B::rec(RP_ACQUIRE, {7}) + B::rec(RP_SIGNAL, {3}) +
                   B::rec(RP_RELEASE, {7});
  std::string t2 = B::rec(RP_WAIT, {3, 7, 2}) + B::rec(RP_RELEASE, {7});
  Trace t = read(B(4).events(2, 3, 2, t2).events(1, 0, 3, t1).end().bytes());
  ASSERT_EQ(t.events.size(), 5u);
  EXPECT_EQ(t.events[3].kind, EventKind::Wait);
  EXPECT_EQ(t.events[3].extra, 1u);
  EXPECT_EQ(t.events[1].kind, EventKind::Signal);
}

TEST(BinaryV4, ReadOfAHiddenWriteStartsARenamedLocation) {
  // t1 writes x = 1; t2 reads 2 there (no recorded write of 2: an
  // uninstrumented write), then writes 3; t1 reads 3. From t2's read on, x
  // is the location 0x1000~1.
  std::string t1 = access(RP_WRITE, kX, 1) + segment(2) + access(RP_READ, 0, 3);
  std::string t2 = access(RP_READ, kX, 2) + access(RP_WRITE, 0, 3);
  Trace t = read(B(4).events(1, 0, 3, t1).events(2, 1, 2, t2).end().bytes());
  EXPECT_EQ(order(t),
            (std::vector<std::string>{"t1 wr 0x1000 1", "t2 rd 0x1000~1 2",
                                      "t2 wr 0x1000~1 3", "t1 rd 0x1000~1 3"}));
  EXPECT_TRUE(validateTrace(t).empty());
}

TEST(BinaryV4, EachHiddenWriteRenamesAgain) {
  std::string t1 = access(RP_WRITE, kX, 1) + access(RP_READ, 0, 2) +
                   access(RP_READ, 0, 2) + access(RP_READ, 0, 4);
  Trace t = read(B(4).events(1, 0, 4, t1).end().bytes());
  EXPECT_EQ(order(t),
            (std::vector<std::string>{"t1 wr 0x1000 1", "t1 rd 0x1000~1 2",
                                      "t1 rd 0x1000~1 2", "t1 rd 0x1000~2 4"}));
}

TEST(BinaryV4, ReadOfAnotherSizeAndValueRenames) {
  // An 8-byte write of 0x0101; a 4-byte read of the same value keeps the
  // name; a 1-byte read of the low byte (1) sees, to the analyser (whose
  // locations are addresses), another value than the last one: x~1; the
  // 8-byte read after it sees 0x0101 again, another value than x~1's: x~2.
  std::string t1 = access(RP_WRITE, kX, 0x0101) +
                   access(RP_READ, 0, 0x0101, 4) + access(RP_READ, 0, 1, 1) +
                   access(RP_READ, 0, 0x0101);
  Trace t = read(B(4).events(1, 0, 4, t1).end().bytes());
  EXPECT_EQ(order(t), (std::vector<std::string>{
                          "t1 wr 0x1000 257", "t1 rd 0x1000 257",
                          "t1 rd 0x1000~1 1", "t1 rd 0x1000~2 257"}));
  EXPECT_TRUE(validateTrace(t).empty());
}

TEST(BinaryV4, AtomicRmwWhoseOldValueDiffersRenames) {
  // armw: new 6, old 5, but the last recorded value was 1.
  std::string rmw =
      B::rec(static_cast<uint8_t>(RP_ATOMIC_RMW | RP_SIZE_8 << RP_SIZE_SHIFT),
             {zz(0), zz(6), zz(5)});
  std::string t1 = access(RP_ATOMIC_WRITE, kX, 1) + rmw;
  Trace t = read(B(4).events(1, 0, 2, t1).end().bytes());
  EXPECT_EQ(order(t), (std::vector<std::string>{"t1 awr 0x1000 1",
                                                "t1 armw 0x1000~1 6"}));
  EXPECT_TRUE(validateTrace(t).empty());
}

TEST(BinaryV4, OlderVersionsAreNotRenamed) {
  // The same pattern in v2 (explicit seq deltas): the recorder of v1-v3
  // renamed itself, so the reader leaves the keys as they are.
  std::string t1 =
      B::rec(static_cast<uint8_t>(RP_WRITE | RP_SIZE_8 << RP_SIZE_SHIFT),
             {0, zz(kX), zz(1)}) +
      B::rec(static_cast<uint8_t>(RP_READ | RP_SIZE_8 << RP_SIZE_SHIFT),
             {0, zz(0), zz(2)});
  Trace t = read(B(2).events(1, 0, 2, t1).end().bytes());
  EXPECT_EQ(order(t),
            (std::vector<std::string>{"t1 wr 0x1000 1", "t1 rd 0x1000 2"}));
  EXPECT_FALSE(validateTrace(t).empty());
}

TEST(BinaryV4, MarkRecordsDoNotExist) {
  std::string t1 = access(RP_WRITE, kX, 1) + B::rec(RP_MARK, {0});
  auto t = fromBinary(B(4).events(1, 0, 2, t1).end().bytes());
  ASSERT_FALSE(static_cast<bool>(t));
  EXPECT_EQ(t.error().message,
            "test.rptrace: byte 31 (after 1 events): unknown event kind 29");
}

TEST(BinaryV4, CutFileKeepsTheCompleteEvents) {
  // The last record of t1's block is cut in the middle of its value.
  std::string t1 = access(RP_WRITE, kX, 1) + access(RP_WRITE, 0, 300);
  std::string bytes = B(4).events(1, 0, 2, t1).bytes();
  bytes.resize(bytes.size() - 1);
  ReadOptions lenient;
  lenient.allowTruncated = true;
  ReadInfo info;
  auto t = fromBinary(bytes, lenient, &info);
  ASSERT_TRUE(static_cast<bool>(t)) << t.error().message;
  EXPECT_TRUE(info.truncated);
  EXPECT_EQ(order(*t), (std::vector<std::string>{"t1 wr 0x1000 1"}));
}

TEST(BinaryV4, WriteDependencesAreSeqDistances) {
  // t1: rd x (seq 0), [t2: wr y (seq 1)], rd y (seq 2), then RP_WRITE_DEPS
  // wr x 7 depending on 1 back (seq 2); then one depending on nothing.
  std::string wdeps = B::rec(RP_WRITE_DEPS | RP_SIZE_8 << RP_SIZE_SHIFT,
                             {zz(kX - kY), zz(7), 1, 1});
  std::string wconst =
      B::rec(RP_WRITE_DEPS | RP_SIZE_8 << RP_SIZE_SHIFT, {zz(0), zz(8), 0});
  std::string t1 = access(RP_READ, kX, 5) + segment(1) +
                   access(RP_READ, kY - kX, 0) + wdeps + wconst;
  std::string t2 = access(RP_WRITE, kY, 9);
  Trace t = read(B(4).events(1, 0, 5, t1).events(2, 1, 1, t2).end().bytes());
  ASSERT_EQ(t.events.size(), 5u);
  const Event &w = t.events[3];
  ASSERT_EQ(w.kind, EventKind::Write);
  EXPECT_EQ(w.value, 7);
  EXPECT_EQ(w.size, 8);
  EXPECT_EQ(t.table(NameSpace::Location).name(w.obj), "0x1000");
  auto [b, e] = t.deps(w);
  EXPECT_EQ(std::vector<EventId>(b, e), (std::vector<EventId>{2}));
  ASSERT_TRUE(t.hasDeps(t.events[4]));
  auto [b2, e2] = t.deps(t.events[4]);
  EXPECT_EQ(b2, e2); // a constant: depends on no read
  // And back: the text and the converter's binary keep the lists.
  std::string text = toText(t);
  EXPECT_NE(text.find("t1 wr 0x1000 7 <- 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("t1 wr 0x1000 8 <-\n"), std::string::npos) << text;
  auto back = fromBinary(toBinary(parseText(text)));
  ASSERT_TRUE(static_cast<bool>(back));
  EXPECT_EQ(toText(*back), text);
}

TEST(BinaryV4, WriteDependenceOnAnotherThreadsEventIsAnError) {
  // The dependence (1 back from seq 2) is t2's write at seq 1.
  std::string t1 =
      access(RP_READ, kX, 5) + segment(1) +
      B::rec(RP_WRITE_DEPS | RP_SIZE_8 << RP_SIZE_SHIFT, {zz(0), zz(7), 1, 1});
  std::string t2 = access(RP_WRITE, kY, 9);
  auto t =
      fromBinary(B(4).events(1, 0, 3, t1).events(2, 1, 1, t2).end().bytes());
  ASSERT_FALSE(static_cast<bool>(t));
  EXPECT_NE(
      t.error().message.find("write dependence 1 is not a read of thread t1"),
      std::string::npos)
      << t.error().message;
}
