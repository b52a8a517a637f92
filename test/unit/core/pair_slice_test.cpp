//===- pair_slice_test.cpp - Which events a race query contains -----------===//
//
// Exact slices (docs/slicing.md) on small traces: the must-happen-before
// past, the writes that feed the reads that matter, escapes for helpers
// outside, the open-section rule, window caps.
//
#include "racepredict/analysis/pair_slice.h"
#include "racepredict/trace/text_format.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace racepredict;
using analysis::EventId;

namespace {

struct Fixture {
  explicit Fixture(const std::string &text) {
    std::istringstream in(text);
    auto p = trace::parseTextTrace(in, "slice.rpt.txt");
    EXPECT_TRUE(static_cast<bool>(p)) << (p ? "" : p.error().message);
    t = std::move(*p);
    idx = std::make_unique<analysis::TraceIndex>(t);
    mhb = std::make_unique<analysis::MustHappenBefore>(*idx);
  }
  /// The events of the slice of (a, b), ascending.
  std::vector<EventId> events(EventId a, EventId b,
                              analysis::SliceOptions o = {}) {
    analysis::Slicer sl(*idx, *mhb, o);
    analysis::PairSlice s;
    EXPECT_TRUE(sl.slice(a, b, &s));
    last = s;
    return list(s);
  }
  std::vector<EventId> list(const analysis::PairSlice &s) const {
    std::vector<EventId> out;
    for (EventId e = 0; e < t.events.size(); ++e)
      if (s.hasEvent(*idx, e) && !s.frozenEvent(*idx, e))
        out.push_back(e);
    return out;
  }
  trace::Trace t;
  std::unique_ptr<analysis::TraceIndex> idx;
  std::unique_ptr<analysis::MustHappenBefore> mhb;
  analysis::PairSlice last;
};

using V = std::vector<EventId>;

// Carril Fig. 5.17 with precise (empty) loop dependences: the slice of the
// race is the worker's whole loop and main's x++, never main's loop.
const char *kFig517 = "t0 fork t1\n" // 0
                      "t0 rd x 0\n"  // 1
                      "t0 wr x 1\n"  // 2
                      "t0 acq m\n"   // 3
                      "t0 rd y 0\n"  // 4
                      "t0 wr y 1\n"  // 5
                      "t0 rel m\n"   // 6
                      "t0 br <-\n"   // 7
                      "t1 acq m\n"   // 8
                      "t1 rd y 1\n"  // 9
                      "t1 wr y 2\n"  // 10
                      "t1 rel m\n"   // 11
                      "t1 br <-\n"   // 12
                      "t1 rd x 1\n"  // 13
                      "t1 wr x 2\n"; // 14

} // namespace

TEST(PairSlice, Fig517SliceIsTheWorkersPastOnly) {
  Fixture f(kFig517);
  EXPECT_EQ(f.events(2, 13), (V{0, 1, 2, 8, 9, 10, 11, 12, 13}));
  // No read matters: no branch depends on any.
  EXPECT_FALSE(f.last.matters(*f.idx, 9));
}

TEST(PairSlice, PlainBranchPullsTheObservedWriterOfEveryEarlierRead) {
  // 0 fork t1, 1 fork t2, 2 t2 wr y 1, 3 t2 wr z 0, 4 t1 rd y 1, 5 t1 br,
  // 6 t1 wr x 1, 7 t0 rd x 1.
  const char *text = "t0 fork t1\nt0 fork t2\nt2 wr y 1\nt2 wr z 0\n"
                     "t1 rd y 1\nt1 br\nt1 wr x 1\nt0 rd x 1\n";
  Fixture f(text);
  EXPECT_EQ(f.events(6, 7), (V{0, 1, 2, 4, 5, 6, 7}));
  EXPECT_TRUE(f.last.matters(*f.idx, 4));
  // Precise and empty: the read does not matter, t2 stays out.
  Fixture g("t0 fork t1\nt0 fork t2\nt2 wr y 1\nt2 wr z 0\n"
            "t1 rd y 1\nt1 br <-\nt1 wr x 1\nt0 rd x 1\n");
  EXPECT_EQ(g.events(6, 7), (V{0, 1, 4, 5, 6, 7}));
}

TEST(PairSlice, WritersOutsideTheSliceAreEscapes) {
  // y = 1 is written twice (no forced writer); lazily only the past.
  const char *text = "t0 fork t1\nt0 fork t2\nt2 wr y 1\nt2 wr y 1\n"
                     "t1 rd y 1\nt1 br\nt1 wr x 1\nt0 rd x 1\n";
  Fixture f(text);
  analysis::SliceOptions lazy;
  lazy.eager = false;
  EXPECT_EQ(f.events(6, 7, lazy), (V{0, 1, 4, 5, 6, 7}));
  analysis::Slicer sl(*f.idx, *f.mhb, lazy);
  // The earliest outside writer per thread; extending takes it.
  EXPECT_EQ(sl.outsideFeeders(f.last, 4), (V{2}));
  sl.extend(f.last, {2});
  EXPECT_EQ(f.list(f.last), (V{0, 1, 2, 4, 5, 6, 7}));
  EXPECT_EQ(sl.outsideFeeders(f.last, 4), (V{3}));
  // Eagerly, every writer observed before the read is in at once.
  EXPECT_EQ(f.events(6, 7), (V{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(PairSlice, OpenSectionReleaseJoinsWhenAnotherSectionFollowsIt) {
  // t1 writes y = 1 (unique) in a section; t0 reads it in a later section
  // and branches; t1's release is observed before t0's acquire.
  const char *text = "t0 fork t1\n" // 0
                     "t0 fork t2\n" // 1
                     "t1 acq m\n"   // 2
                     "t1 wr y 1\n"  // 3
                     "t1 rel m\n"   // 4
                     "t1 wr q 0\n"  // 5
                     "t0 acq m\n"   // 6
                     "t0 rd y 1\n"  // 7
                     "t0 br\n"      // 8
                     "t0 rel m\n"   // 9
                     "t0 wr x 1\n"  // 10
                     "t2 wr x 2\n"; // 11
  Fixture f(text);
  EXPECT_EQ(f.events(10, 11), (V{0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11}));
  analysis::SliceOptions lazy;
  lazy.eager = false;
  // Lazily the forced writer is in (a must edge), its release is not: an
  // escape stands for it.
  EXPECT_EQ(f.events(10, 11, lazy), (V{0, 1, 2, 3, 6, 7, 8, 9, 10, 11}));
  analysis::Slicer sl(*f.idx, *f.mhb, lazy);
  uint32_t sec = f.idx->sectionAcquiredAt(2);
  EXPECT_EQ(sl.outsideRelease(f.last, sec), 4u);
}

TEST(PairSlice, OrderedPairsHaveNoSliceAndTheCutEndsEachThread) {
  Fixture f(kFig517);
  analysis::Slicer sl(*f.idx, *f.mhb);
  analysis::PairSlice s;
  EXPECT_FALSE(sl.slice(0, 13, &s)); // the fork precedes everything of t1
  ASSERT_TRUE(sl.slice(2, 13, &s));
  // Nothing of t0 after its x++ may be in a witness of (2, 13).
  EXPECT_EQ(s.cap(*f.idx, 0), analysis::eventUnit(2) + 1);
}

TEST(PairSlice, WindowFreezesThePastAndCapsTheFuture) {
  // 0 fork t1, 1 fork t2, 2 t0 wr y 1 | window [3, 6): 3 t1 rd y 1,
  // 4 t1 wr x 2, 5 t0 wr x 3 | 6 t2 wr z 0.
  Fixture g("t0 fork t1\nt0 fork t2\nt0 wr y 1\nt1 rd y 1\nt1 wr x 2\n"
            "t0 wr x 3\nt2 wr z 0\n");
  analysis::SliceOptions w;
  w.windowBegin = 3;
  w.windowEnd = 6;
  EXPECT_EQ(g.events(4, 5, w), (V{3, 4, 5}));
  EXPECT_TRUE(g.last.frozenEvent(*g.idx, 2));
  EXPECT_EQ(g.last.frozen[0], 6u); // t0's three events before the window
  EXPECT_EQ(g.last.frozen[1], 0u);
  // The window's end caps t2: its only event can never be in a witness.
  EXPECT_EQ(g.last.limitPos[2], 0u);
}

// Deadlock slices (Slicer::sliceBlocked): each blocked thread's prefix up
// to its blocking event, closed like a race slice; nothing of the other
// threads' later runs.
namespace {

std::vector<EventId> blockedSlice(Fixture &f,
                                  std::vector<analysis::BlockedAt> blocked,
                                  bool *feasible) {
  analysis::Slicer sl(*f.idx, *f.mhb);
  analysis::PairSlice s;
  *feasible = sl.sliceBlocked(blocked, {}, &s);
  f.last = s;
  return f.list(s);
}

} // namespace

TEST(DeadlockSlice, LockCycleSliceEndsBeforeTheBlockingAcquires) {
  Fixture f("t0 fork t1\n"   // 0
            "t0 fork t2\n"   // 1
            "t1 acq a\n"     // 2
            "t1 acq b\n"     // 3  blocked
            "t1 rel b\n"     // 4
            "t1 rel a\n"     // 5
            "t1 acq a\n"     // 6  (a later iteration: not in the slice)
            "t1 rel a\n"     // 7
            "t2 wr x 1\n"    // 8
            "t2 acq b\n"     // 9
            "t2 acq a\n"     // 10 blocked
            "t2 rel a\n"     // 11
            "t2 rel b\n"     // 12
            "t0 join t1\n"   // 13
            "t0 join t2\n"); // 14
  bool ok = false;
  EXPECT_EQ(blockedSlice(f, {{3}, {10}}, &ok), (V{0, 1, 2, 8, 9}));
  EXPECT_TRUE(ok);
  EXPECT_FALSE(f.last.hasEvent(*f.idx, 3));
  EXPECT_FALSE(f.last.hasEvent(*f.idx, 10));
}

TEST(DeadlockSlice, WaitKeepsItsFirstHalfOnly) {
  // t1 waits (releasing m) and is notified by t2; t1 blocks at the wait's
  // return, so its release half is in the slice, its event is not.
  Fixture f("t0 fork t1\n"   // 0
            "t0 fork t2\n"   // 1
            "t1 acq m\n"     // 2
            "t1 wait c m\n"  // 3  blocked (second half)
            "t1 rel m\n"     // 4
            "t2 acq n\n"     // 5
            "t2 acq m\n"     // 6
            "t2 signal c\n"  // 7
            "t2 rel m\n"     // 8
            "t2 acq n\n"     // 9  blocked
            "t0 join t1\n"   // 10
            "t0 join t2\n"); // 11
  bool ok = false;
  blockedSlice(f, {{3}, {9}}, &ok);
  EXPECT_TRUE(ok);
  EXPECT_TRUE(f.last.hasHalf(*f.idx, 3));
  EXPECT_FALSE(f.last.hasEvent(*f.idx, 3));
  EXPECT_FALSE(f.last.hasEvent(*f.idx, 4));
  EXPECT_TRUE(f.last.hasEvent(*f.idx, 8));
}

TEST(DeadlockSlice, PrefixThatMustFollowAnotherBlockedEventIsInfeasible) {
  // t2 joins t1 before its acquire: t2's prefix needs all of t1, so t1
  // cannot be blocked at its acquire at the same time.
  Fixture f("t0 fork t1\n"   // 0
            "t0 fork t2\n"   // 1
            "t1 acq a\n"     // 2
            "t1 rel a\n"     // 3
            "t2 join t1\n"   // 4
            "t2 acq a\n"     // 5
            "t2 rel a\n"     // 6
            "t0 join t2\n"); // 7
  bool ok = true;
  blockedSlice(f, {{2}, {5}}, &ok);
  EXPECT_FALSE(ok);
}
