//===- race_groups_test.cpp - One race per pair of source locations -------===//
#include "report_test_util.h"

#include "racepredict/report/memory_block.h"
#include "racepredict/report/race_groups.h"

using namespace racepredict;
using namespace racepredict::report;

TEST(RaceGroups, SameLinesReachedFromTwoCallersAreOneRace) {
  // q.c:5 inlined into a (line 20) and b (line 30): two source ids of one
  // program location; x and y are two objects hit by the same two lines.
  trace::Trace t = testutil::parse(R"(t0 fork t1
t0 fork t2
t1 wr x 1 @q.c:5:3@inc @q.c:20@a
t2 wr x 2 @q.c:5:3@inc @q.c:30@b
t1 wr y 1 @q.c:5:3@inc @q.c:20@a
t2 rd y 1 @q.c:9@get
)");
  solver::RaceResult r;
  r.races = {{2, 3, {}}, {4, 5, {}}};
  solver::RaceResult same = r;
  same.races.push_back({2, 3, {}});
  oneRacePerLocationPair(t, same);
  ASSERT_EQ(same.races.size(), 2u); // (5,5) once, (5,9) once
  RaceExtent x = raceExtent(t, 2, 3);
  EXPECT_EQ(x.pairs, 1u); // x: t1's write and t2's write
  EXPECT_EQ(x.threads, (std::vector<trace::ThreadId>{1, 2}));
  EXPECT_EQ(extentText(t, x), "1 conflicting event pair at these two "
                              "locations, threads t1, t2");
}

TEST(RaceGroups, ExtentCountsPairsOfEveryThreadButNotOfOneThread) {
  // Three threads each read and write n at c.c:4: per pair of threads 3
  // conflicting pairs (rd-wr, wr-rd, wr-wr), 3 pairs of threads.
  std::string s = "t0 fork t1\nt0 fork t2\nt0 fork t3\n";
  for (const char *u : {"t1", "t2", "t3"})
    s += std::string(u) + " rd n 0 @c.c:4@f\n" + u + " wr n 1 @c.c:4@f\n";
  trace::Trace t = testutil::parse(s);
  RaceExtent x = raceExtent(t, 4, 5);
  EXPECT_EQ(x.pairs, 9u);
  EXPECT_EQ(x.threads.size(), 3u);
}

TEST(MemoryBlock, AccessInsideAHeapBlockNamesItsAllocation) {
  trace::Trace t = testutil::parse(R"(t0 alloc 0x1000 40 @m.c:3@main
t0 fork t1
t1 wr 0x1020 5 @m.c:9@worker
t0 free 0x1000 40 @m.c:12@main
t0 alloc 0x1000 8 @m.c:13@main
t0 wr 0x1030 1 @m.c:14@main
)");
  EXPECT_EQ(allocationOf(t, 2), 0u);
  EXPECT_EQ(blockText(t, 0, 2), "block of size 40 at 0x1000 (the access is "
                                "32 bytes inside) allocated by thread t0");
  // After the free, the new block is 8 bytes: 0x1030 is in none.
  EXPECT_EQ(allocationOf(t, 5), trace::kNone);
  EXPECT_EQ(locationAddress("GLOB"), std::nullopt);
}
