//===- hb_races_test.cpp - The happens-before baseline of --hb ------------===//
#include "racepredict/analysis/hb_races.h"
#include "racepredict/trace/text_format.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace racepredict;
using Pairs = std::vector<std::pair<uint32_t, uint32_t>>;

namespace {

Pairs hb(const std::string &text) {
  std::istringstream in(text);
  auto t = trace::parseTextTrace(in, "test.rpt.txt");
  EXPECT_TRUE(static_cast<bool>(t)) << (t ? "" : t.error().message);
  if (!t)
    return {};
  analysis::TraceIndex idx(*t);
  return analysis::hbRaces(idx);
}

} // namespace

TEST(HbRaces, UnorderedAccessesRace) {
  EXPECT_EQ(hb("t1 wr x 1\nt2 rd x 1\n"), (Pairs{{0, 1}}));
}

TEST(HbRaces, LockOrderInTheObservedRunHidesTheFig1Race) {
  // Huang et al. Fig. 1: the maximal model finds (2, 9); HB cannot, since
  // the observed release -> acquire orders everything.
  EXPECT_EQ(hb("t1 fork t2\nt1 acq l\nt1 wr x 1\nt1 wr y 1\nt1 rel l\n"
               "t2 begin\nt2 acq l\nt2 rd y 1\nt2 rel l\nt2 br\nt2 rd x 1\n"),
            Pairs{});
}

TEST(HbRaces, ForkJoinBarrierAndAtomicsOrder) {
  EXPECT_EQ(hb("t1 wr x 1\nt1 fork t2\nt2 wr x 2\nt1 join t2\nt1 rd x 2\n"),
            Pairs{});
  EXPECT_EQ(hb("t1 wr x 1\nt1 barrier b 2\nt2 barrier b 2\nt2 rd x 1\n"),
            Pairs{});
  EXPECT_EQ(hb("t1 wr x 1\nt1 awr f 1\nt2 ard f 1\nt2 rd x 1\n"), Pairs{});
  // An atomic read before the write orders nothing.
  EXPECT_EQ(hb("t2 ard f 0\nt1 wr x 1\nt1 awr f 1\nt2 rd x 1\n"),
            (Pairs{{1, 3}}));
}

TEST(HbRaces, WaitReleasesItsLockBeforeTheNotifier) {
  // t1 writes x under m, then waits (releasing m); t2 takes m, reads x and
  // signals: ordered by t1's release half -> t2's acquire.
  EXPECT_EQ(hb("t1 acq m\nt1 wr x 1\nt2 acq m\nt2 rd x 1\nt2 signal c\n"
               "t2 rel m\nt1 wait c m\nt1 rel m\n"),
            Pairs{});
}

TEST(HbRaces, SemaphorePostOrdersLaterWaits) {
  EXPECT_EQ(hb("t1 seminit s 0\nt1 wr x 1\nt1 post s\nt2 semwait s\n"
               "t2 rd x 1\n"),
            Pairs{});
}
