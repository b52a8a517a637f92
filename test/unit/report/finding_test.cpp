//===- finding_test.cpp - Findings resolve sites and round-trip JSON ------===//
#include "report_test_util.h"

using namespace racepredict;
using namespace racepredict::report;

TEST(Finding, RaceSitesAndWitnessFromTheTrace) {
  trace::Trace t = testutil::parse(testutil::kRaceTrace);
  Finding f = testutil::raceOf(t);
  EXPECT_EQ(f.kind, FindingKind::Race);
  EXPECT_EQ(f.object, "x");
  ASSERT_EQ(f.sites.size(), 2u);
  EXPECT_EQ(f.sites[0].event, 2);
  EXPECT_EQ(f.sites[0].thread, "t1");
  EXPECT_EQ(f.sites[0].op, "wr");
  EXPECT_EQ(f.sites[0].loc(), "/src/proj/a/b/race.c:10:5");
  EXPECT_EQ(f.sites[0].function, "main");
  EXPECT_EQ(f.sites[1].loc(), "/src/proj/a/b/race.c:20");
  EXPECT_EQ(f.sites[1].function, "worker");
  ASSERT_EQ(f.witness.size(), 5u);
  std::vector<int64_t> order;
  std::vector<bool> essential;
  for (const auto &w : f.witness) {
    order.push_back(w.site.event);
    essential.push_back(w.essential);
  }
  EXPECT_EQ(order, (std::vector<int64_t>{0, 1, 3, 2, 4}));
  EXPECT_EQ(essential, (std::vector<bool>{false, false, false, true, true}));
  EXPECT_EQ(f.message, "Data race on x: wr by thread t2 at "
                       "/src/proj/a/b/race.c:20 in worker races with wr by "
                       "thread t1 at /src/proj/a/b/race.c:10:5 in main.");
  EXPECT_EQ(f.status, "predicted");
}

TEST(Finding, DeadlockSitesAreBlockedEventsThenHeldAcquisitions) {
  trace::Trace t = testutil::parse(R"(t1 begin
t1 fork t2
t1 acq m1 @d.c:5@a
t1 acq m2 @d.c:6@a
t1 rel m2
t1 rel m1
t2 begin
t2 acq m2 @d.c:12@b
t2 acq m1 @d.c:13@b
t2 rel m1
t2 rel m2
)");
  Finding f = deadlockFinding(t, "lock", {3, 8},
                              {"thread t1 waits for lock m2 held by t2",
                               "thread t2 waits for lock "
                               "m1 held by t1"},
                              {7, 2}, {0, 1, 2, 6, 7});
  EXPECT_EQ(f.subkind, "lock");
  ASSERT_EQ(f.notes.size(), 2u);
  EXPECT_EQ(f.kind, FindingKind::Deadlock);
  EXPECT_EQ(f.object, "m1, m2");
  ASSERT_EQ(f.sites.size(), 4u);
  EXPECT_EQ(f.sites[0].loc(), "d.c:6");
  EXPECT_EQ(f.sites[1].loc(), "d.c:13");
  EXPECT_EQ(f.sites[2].loc(), "d.c:12");
  EXPECT_EQ(f.sites[3].loc(), "d.c:5");
  ASSERT_EQ(f.witness.size(), 7u);
  EXPECT_FALSE(f.witness[4].essential);
  EXPECT_TRUE(f.witness[5].essential);
  EXPECT_EQ(f.witness[6].site.event, 8);
  EXPECT_EQ(f.message,
            "Deadlock (lock) of 2 threads: at d.c:6 in a, thread t1 waits for "
            "lock m2 held by t2; at d.c:13 in b, thread t2 waits for lock m1 "
            "held by t1.");
}

TEST(Finding, JsonRoundTrip) {
  trace::Trace t = testutil::parse(testutil::kRaceTrace);
  Finding f = testutil::raceOf(t);
  f.status = "confirmed";
  auto back = findingFromJson(nlohmann::json::parse(findingJson(f).dump()));
  ASSERT_TRUE(static_cast<bool>(back)) << back.error().message;
  EXPECT_EQ(findingJson(*back).dump(), findingJson(f).dump());
}

TEST(Finding, JsonErrorsNameTheField) {
  auto missing = findingFromJson(nlohmann::json::parse(R"({"object": "x"})"));
  ASSERT_FALSE(static_cast<bool>(missing));
  EXPECT_EQ(missing.error().message, "missing field 'kind'");
  auto kind = findingFromJson(
      nlohmann::json::parse(R"({"kind": "leak", "sites": [{}]})"));
  ASSERT_FALSE(static_cast<bool>(kind));
  EXPECT_EQ(kind.error().message, "unknown finding kind 'leak'");
  auto site = findingFromJson(nlohmann::json::parse(
      R"({"kind": "race", "sites": [{"event": "two", "thread": "t", "op": "wr"}]})"));
  ASSERT_FALSE(static_cast<bool>(site));
  EXPECT_EQ(site.error().message, "sites: field 'event' has the wrong type");
}
