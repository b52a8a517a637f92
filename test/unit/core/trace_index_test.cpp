//===- trace_index_test.cpp - Lock sections, generations, initial values --===//
#include "racepredict/analysis/mhb.h"
#include "racepredict/analysis/trace_index.h"
#include "racepredict/trace/text_format.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace racepredict;
using analysis::EventId;
using analysis::kNone;
using analysis::SymId;

namespace {
trace::Trace parse(const std::string &text) {
  std::istringstream in(text);
  auto t = trace::parseTextTrace(in, "idx.rpt.txt");
  EXPECT_TRUE(static_cast<bool>(t)) << (t ? "" : t.error().message);
  return t ? std::move(*t) : trace::Trace{};
}
} // namespace

TEST(TraceIndex, SectionsPairAcquiresWithReleasesAndWaits) {
  trace::Trace t = parse("t1 acq m\n"         // 0
                         "t1 racq r\n"        // 1
                         "t2 signal c\n"      // 2
                         "t1 wait c m <- 2\n" // 3: closes 0's section, opens
                         "t1 rel r\n"         // 4
                         "t1 rel m\n"         // 5
                         "t2 acq m\n");       // 6: never released
  analysis::TraceIndex idx(t);
  ASSERT_EQ(idx.sections().size(), 4u);
  SymId m = *t.table(trace::NameSpace::Lock).find("m");
  std::vector<std::tuple<EventId, EventId, bool, bool>> got;
  for (uint32_t s : idx.sectionsOf(m)) {
    const auto &sec = idx.sections()[s];
    got.emplace_back(sec.acquire, sec.release, sec.readMode,
                     sec.releasedByWait);
  }
  std::vector<std::tuple<EventId, EventId, bool, bool>> want{
      {0, 3, false, true}, {3, 5, false, false}, {6, kNone, false, false}};
  EXPECT_EQ(got, want);
  SymId r = *t.table(trace::NameSpace::Lock).find("r");
  ASSERT_EQ(idx.sectionsOf(r).size(), 1u);
  EXPECT_TRUE(idx.sections()[idx.sectionsOf(r)[0]].readMode);
  // Event 4 (rel r) is inside the wait-opened section of m; r's own section
  // ends at it, so it does not count.
  ASSERT_EQ(idx.sectionsHolding(4).size(), 1u);
  EXPECT_EQ(idx.sections()[idx.sectionsHolding(4)[0]].acquire, 3u);
}

TEST(TraceIndex, InitialValuesFollowTheFirstReadRule) {
  trace::Trace t = parse("init a 7\n"
                         "t1 rd b 3\n"
                         "t1 wr c 1\n"
                         "t1 armw d 5 4\n"
                         "t1 wr a 1\n");
  analysis::TraceIndex idx(t);
  auto loc = [&](const char *n) {
    return *t.table(trace::NameSpace::Location).find(n);
  };
  EXPECT_EQ(idx.initialValue(loc("a")), 7);
  EXPECT_EQ(idx.initialValue(loc("b")), 3);
  EXPECT_EQ(idx.initialValue(loc("c")), std::nullopt);
  EXPECT_EQ(idx.initialValue(loc("d")), 4);
}

TEST(TraceIndex, BarrierGenerationsAndSemaphoreInitialCount) {
  trace::Trace t = parse("t1 barrier b 2\nt2 barrier b 2\n"
                         "t2 barrier b 2\nt1 barrier b 2\n"
                         "t1 semwait s\nt1 semwait s\nt2 post s\n");
  analysis::TraceIndex idx(t);
  ASSERT_EQ(idx.barrierGenerations().size(), 2u);
  EXPECT_EQ(idx.barrierGenerations()[0], (std::vector<EventId>{0, 1}));
  EXPECT_EQ(idx.barrierGenerations()[1], (std::vector<EventId>{2, 3}));
  // Two waits before any post: the semaphore must have started at 2.
  EXPECT_EQ(idx.semInitialCount(*t.table(trace::NameSpace::Sem).find("s")), 2);
}

TEST(MustHappenBefore, ForkJoinNotifyAndBarrierEdges) {
  trace::Trace t = parse("t1 wr x 1\n"   // 0
                         "t1 fork t2\n"  // 1
                         "t2 rd x 1\n"   // 2
                         "t2 signal c\n" // 3
                         "t3 wait c m\n" // 4 (matched to 3)
                         "t3 wr y 1\n"   // 5
                         "t1 join t2\n"  // 6
                         "t1 wr z 1\n"   // 7
                         "t4 wr z 2\n"); // 8
  analysis::TraceIndex idx(t);
  analysis::MustHappenBefore mhb(idx);
  EXPECT_TRUE(mhb.ordered(0, 2));  // fork
  EXPECT_TRUE(mhb.ordered(0, 5));  // fork, then notify → wait
  EXPECT_TRUE(mhb.ordered(2, 7));  // join
  EXPECT_FALSE(mhb.ordered(5, 7)); // t3 is never joined
  EXPECT_FALSE(mhb.orderedEitherWay(7, 8));
  EXPECT_FALSE(mhb.ordered(2, 0));
}
