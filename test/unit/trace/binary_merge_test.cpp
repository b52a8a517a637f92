//===- binary_merge_test.cpp - The v3 merge of ticket and stripe orders ---===//
//
// Format v3 (format.h) leaves the observed order to the reader: program
// order, global tickets (sync, marks) and per-stripe order (accesses). These
// traces are hand-made so that the file's block order disagrees with the
// order the merge must find.
//
#include "binary_builder.h"
#include "trace_test_util.h"

using namespace racepredict::trace;
using namespace racepredict::trace::test;

namespace {

using B = BinaryBuilder;

uint64_t zz(int64_t v) { return codec::zigzag(v); }
/// A v3 8-byte access record: order delta, location delta, value (no src).
std::string access(uint8_t kind, int64_t orderDelta, int64_t locDelta,
                   int64_t value) {
  return B::rec(static_cast<uint8_t>(kind | RP_SIZE_8 << RP_SIZE_SHIFT),
                {zz(orderDelta), zz(locDelta), zz(value)});
}
std::string mark(uint64_t seqDelta) { return B::rec(RP_MARK, {seqDelta}); }

/// "thread op value" per event, in trace order.
std::vector<std::string> order(const Trace &t) {
  std::vector<std::string> out;
  for (const Event &e : t.events)
    out.push_back(t.threadName(e.thread) + " " + opName(e.kind) + " " +
                  std::to_string(e.value));
  return out;
}

constexpr int64_t kX = 0x1000, kY = 0x2000; // different stripes

} // namespace

TEST(BinaryMerge, SharedReadSitsBetweenTheWritesOfItsStripe) {
  // t2's block comes first in the file; its read saw exclusive access 1
  // (field 3 = shared after 1), so it goes between t1's two writes.
  std::string bytes =
      B(3).events(2, 0, 1, access(RP_READ, 3, kX, 1))
          .events(1, 0, 2,
                  access(RP_WRITE, 2, kX, 1) + access(RP_WRITE, 2, 0, 2))
          .end()
          .bytes();
  auto t = fromBinary(bytes);
  ASSERT_TRUE(static_cast<bool>(t)) << t.error().message;
  EXPECT_EQ(order(*t),
            (std::vector<std::string>{"t1 wr 1", "t2 rd 1", "t1 wr 2"}));
}

TEST(BinaryMerge, TicketsOrderLockSectionsAcrossThreads) {
  // t2 (first in the file) takes the lock after t1 released it: tickets 3
  // and 2; its shared read of y saw t1's write.
  std::string t1 = B::rec(RP_ACQUIRE, {0, 9}) + access(RP_WRITE, 2, kY, 7) +
                   B::rec(RP_RELEASE, {0, 9});
  std::string t2 = B::rec(RP_ACQUIRE, {0, 9}) + access(RP_READ, 3, kY, 7) +
                   B::rec(RP_RELEASE, {0, 9});
  std::string bytes =
      B(3).events(2, 3, 3, t2).events(1, 1, 3, t1).end().bytes();
  auto t = fromBinary(bytes);
  ASSERT_TRUE(static_cast<bool>(t)) << t.error().message;
  EXPECT_EQ(order(*t),
            (std::vector<std::string>{"t1 acq 0", "t1 wr 7", "t1 rel 0",
                                      "t2 acq 0", "t2 rd 7", "t2 rel 0"}));
}

TEST(BinaryMerge, MarkOrdersEarlierAccessesBeforeLaterTickets) {
  // Without t1's mark (ticket 1) nothing would order its write of x before
  // t2's acquire (ticket 2); the mark is not an event.
  std::string bytes =
      B(3).events(2, 2, 2,
                  B::rec(RP_ACQUIRE, {0, 9}) + access(RP_WRITE, 2, kY, 5))
          .events(1, 1, 2, access(RP_WRITE, 2, kX, 4) + mark(0))
          .end()
          .bytes();
  auto t = fromBinary(bytes);
  ASSERT_TRUE(static_cast<bool>(t)) << t.error().message;
  EXPECT_EQ(order(*t),
            (std::vector<std::string>{"t1 wr 4", "t2 acq 0", "t2 wr 5"}));
}

TEST(BinaryMerge, DependencesCountBackAndNotifiesAreTickets) {
  // t1: rd x, br <- (1 back), signal c (ticket 5); t2: wait c L notify=5.
  std::string t1 = access(RP_READ, 1, kX, 0) + B::rec(RP_BRANCH, {2, 1}) +
                   B::rec(RP_SIGNAL, {0, 3});
  std::string t2 = B::rec(RP_WAIT, {0, 3, 9, 6});
  std::string bytes =
      B(3).events(2, 6, 1, t2).events(1, 5, 3, t1).end().bytes();
  auto t = fromBinary(bytes);
  ASSERT_TRUE(static_cast<bool>(t)) << t.error().message;
  ASSERT_EQ(t->events.size(), 4u);
  const Event &br = t->events[1];
  ASSERT_EQ(br.kind, EventKind::Branch);
  ASSERT_NE(br.extra, kNone);
  auto [d0, d1] = t->deps(br);
  ASSERT_EQ(d1 - d0, 1);
  EXPECT_EQ(*d0, 0u); // the read
  const Event &wait = t->events[3];
  ASSERT_EQ(wait.kind, EventKind::Wait);
  EXPECT_EQ(wait.extra, 2u); // the signal
}

TEST(BinaryMerge, ContradictoryOrdersAreAnErrorUnlessTheFileWasCut) {
  // t1 writes x (access 2) then y (access 1); t2 writes y (access 2) then x
  // (access 1): each head waits for the other thread's second record.
  std::string t1 =
      access(RP_WRITE, 4, kX, 1) + access(RP_WRITE, -2, kY - kX, 1);
  std::string t2 =
      access(RP_WRITE, 4, kY, 2) + access(RP_WRITE, -2, kX - kY, 2);
  B whole = B(3).events(1, 0, 2, t1).events(2, 0, 2, t2);
  auto t = fromBinary(B(whole).end().bytes());
  ASSERT_FALSE(static_cast<bool>(t));
  EXPECT_NE(t.error().message.find("the recorded orders contradict each "
                                   "other (4 events cannot be placed"),
            std::string::npos)
      << t.error().message;
  // The same records in a file without END: what cannot be ordered was
  // waiting for something lost with the cut, and is dropped.
  ReadOptions opts;
  opts.allowTruncated = true;
  auto cut = fromBinary(whole.bytes(), opts);
  ASSERT_TRUE(static_cast<bool>(cut)) << cut.error().message;
  EXPECT_TRUE(cut->events.empty());
}
