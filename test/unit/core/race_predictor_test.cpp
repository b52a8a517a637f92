//===- race_predictor_test.cpp - Exact race sets on small encodings -------===//
//
// Each trace isolates one constraint family of docs/semantics.md; the
// expected pair sets were derived by hand from that semantics.
//
#include "racepredict/analysis/schedule_checker.h"
#include "racepredict/solver/race_predictor.h"
#include "racepredict/trace/text_format.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>

using namespace racepredict;
using Pairs = std::set<std::pair<uint32_t, uint32_t>>;

namespace {

trace::Trace parse(const std::string &text) {
  std::istringstream in(text);
  auto t = trace::parseTextTrace(in, "test.rpt.txt");
  EXPECT_TRUE(static_cast<bool>(t)) << (t ? "" : t.error().message);
  return t ? std::move(*t) : trace::Trace{};
}

solver::RaceResult predict(const trace::Trace &t, bool filters = true,
                           unsigned jobs = 1, bool fastPath = true) {
  analysis::TraceIndex idx(t);
  solver::RaceOptions o;
  o.allPairs = true;
  o.noFilters = !filters;
  o.noFastPath = !fastPath;
  o.jobs = jobs;
  return solver::predictRaces(idx, o);
}

Pairs races(const std::string &text, bool filters = true,
            bool fastPath = true) {
  trace::Trace t = parse(text);
  solver::RaceResult r = predict(t, filters, 1, fastPath);
  EXPECT_TRUE(r.unknowns.empty());
  Pairs out;
  for (const auto &f : r.races) {
    out.insert({f.first, f.second});
    // The witness ends with the racing pair.
    std::vector<analysis::EventId> w = f.schedule.events();
    EXPECT_GE(w.size(), 2u);
    EXPECT_EQ(w[w.size() - 2], f.first);
    EXPECT_EQ(w.back(), f.second);
  }
  return out;
}

/// With and without the cheap filters (they may only drop pairs the solver
/// rejects) and without the closure fast path (the encoding alone decides).
void expectRaces(const std::string &text, const Pairs &expected) {
  EXPECT_EQ(races(text, true), expected);
  EXPECT_EQ(races(text, false), expected);
  EXPECT_EQ(races(text, true, false), expected);
}

} // namespace

TEST(RacePredictor, UnsynchronisedAccessesRace) {
  expectRaces("t1 wr x 1\nt2 rd x 1\n", {{0, 1}});
}

TEST(RacePredictor, CommonLockPreventsRace) {
  expectRaces("t1 acq m\nt1 wr x 1\nt1 rel m\n"
              "t2 acq m\nt2 rd x 1\nt2 rel m\n",
              {});
}

TEST(RacePredictor, ReadModeSectionsDoNotExclude) {
  expectRaces("t1 racq m\nt1 wr x 1\nt1 rel m\n"
              "t2 racq m\nt2 rd x 1\nt2 rel m\n",
              {{1, 4}});
}

TEST(RacePredictor, BranchOnReadFreezesItsWriter) {
  // t2's branch needs y == 1, so t1's writes (x first) happen before it.
  const char *plain = "t1 wr x 1\nt1 acq l\nt1 wr y 1\nt1 rel l\n"
                      "t2 acq l\nt2 rd y 1\nt2 rel l\nt2 br\nt2 rd x 1\n";
  expectRaces(plain, {});
  // A branch that depends on no read does not constrain it.
  const char *free = "t1 wr x 1\nt1 acq l\nt1 wr y 1\nt1 rel l\n"
                     "t2 acq l\nt2 rd y 1\nt2 rel l\nt2 br <-\nt2 rd x 1\n";
  expectRaces(free, {{0, 8}});
}

TEST(RacePredictor, PreciseDependencesAdmitMoreRaces) {
  const char *deps = "t1 wr x 1\nt1 wr y 1\nt2 rd y 1\nt2 rd z 0\n"
                     "t2 br <- 3\nt2 rd x 1\n";
  expectRaces(deps, {{0, 5}, {1, 2}});
  const char *plain = "t1 wr x 1\nt1 wr y 1\nt2 rd y 1\nt2 rd z 0\n"
                      "t2 br\nt2 rd x 1\n";
  expectRaces(plain, {{1, 2}});
}

TEST(RacePredictor, PartialScheduleNeedsNoDeadlockFreeExtension) {
  // At the race both threads hold one lock and will next request the
  // other's: the schedule cannot be completed, yet the race is real.
  expectRaces("t1 acq m\nt1 wr x 1\nt1 acq n\nt1 rel n\nt1 rel m\n"
              "t2 acq n\nt2 wr x 2\nt2 acq m\nt2 rel m\nt2 rel n\n",
              {{1, 6}});
}

TEST(RacePredictor, MatchedNotifyOrdersWait) {
  const char *matched = "t1 acq m\nt2 wr x 1\nt2 acq m\nt2 signal c\n"
                        "t2 rel m\nt1 wait c m\nt1 rel m\nt1 rd x 1\n";
  expectRaces(matched, {});
  const char *spurious = "t1 acq m\nt2 wr x 1\nt2 acq m\nt2 signal c\n"
                         "t2 rel m\nt1 wait c m <- none\nt1 rel m\n"
                         "t1 rd x 1\n";
  expectRaces(spurious, {{1, 7}});
}

TEST(RacePredictor, SemaphoreCountsPosts) {
  expectRaces("t1 wr x 1\nt1 post s\nt2 semwait s\nt2 rd x 1\n", {});
  // A second poster can serve the wait instead.
  expectRaces("t3 post s\nt1 wr x 1\nt1 post s\nt2 semwait s\nt2 rd x 1\n",
              {{1, 4}});
  expectRaces("t0 seminit s 1\nt1 wr x 1\nt1 post s\nt2 semwait s\n"
              "t2 rd x 1\n",
              {{1, 4}});
}

TEST(RacePredictor, FailedTrylockMustFailAgain) {
  // t2's branch after the failed trylock needs t1 to hold m, hence t1's
  // write before its acquire has happened.
  expectRaces("t1 wr x 2\nt1 acq m\nt2 tryfail m\nt2 br\nt2 wr x 1\n"
              "t1 rel m\n",
              {});
  expectRaces("t1 acq m\nt2 tryfail m\nt2 br\nt2 wr x 1\nt1 wr x 2\n"
              "t1 rel m\n",
              {{3, 4}});
}

TEST(RacePredictor, AtomicRmwValueOrdersThreads) {
  expectRaces("t1 wr x 1\nt1 armw c 1 0\nt2 armw c 2 1\nt2 br\nt2 rd x 1\n",
              {});
  // Atomics never race with each other.
  expectRaces("t1 awr c 1\nt2 ard c 1\n", {});
}

TEST(RacePredictor, BarrierAndForkJoinOrder) {
  expectRaces("t1 wr x 1\nt1 barrier b 2\nt2 barrier b 2\nt2 rd x 1\n", {});
  expectRaces("t1 wr x 1\nt1 fork t2\nt2 wr x 2\nt1 join t2\nt1 rd x 2\n", {});
}

TEST(RacePredictor, InitValueFeedsFirstRead) {
  // t2 reads x == 0 (the init value) and branches: its read must stay
  // before t1's write of x, but t1's write of y may come first.
  expectRaces("init x 0\nt2 rd x 0\nt2 br\nt2 rd y 0\nt1 wr y 1\n"
              "t1 wr x 1\n",
              {{0, 4}, {2, 3}});
  // Without `init` and with a write first, x's initial value is unknown:
  // a read of 0 can only be fed by t1's write of 0.
  expectRaces("t1 wr x 0\nt2 rd x 0\nt2 br\nt2 wr y 1\nt1 rd y 1\n",
              {{0, 1}, {3, 4}});
}

TEST(RacePredictor, OutputDoesNotDependOnJobs) {
  std::string text;
  for (int i = 0; i < 12; ++i) {
    std::string n = std::to_string(i);
    text += "t1 wr v" + n + " " + n + " @a.c:" + n + "\n";
    text += "t2 rd v" + n + " " + n + " @b.c:" + n + "\n";
    text += "t2 br\n";
  }
  trace::Trace t = parse(text);
  solver::RaceResult one = predict(t, true, 1);
  solver::RaceResult four = predict(t, true, 4);
  ASSERT_EQ(one.races.size(), four.races.size());
  for (size_t i = 0; i < one.races.size(); ++i) {
    EXPECT_EQ(one.races[i].first, four.races[i].first);
    EXPECT_EQ(one.races[i].schedule, four.races[i].schedule);
  }
}

// The race (7, 15) on x needs t1's section to read z = 1 from event 1
// before t0's first section overwrites it (the greedy schedule cannot move
// a section: test/inputs/scale/overwritten_writer.rpt.txt). A restricted
// query that freezes the observed run before event 4 (3 events before a)
// leaves t0's acquire free and finds the witness; one that freezes it
// before event 5 has t0 inside its section already, is unsat, and proves
// nothing: the full query still finds the race.
const char *kSectionMustGoFirst = R"(
t0 begin
t0 wr z 1
t0 fork t1
t1 begin
t0 acq m
t0 wr z 2
t0 rel m
t0 wr x 1
t0 acq m
t0 wr z 1
t0 rel m
t1 acq m
t1 rd z 1
t1 rel m
t1 br
t1 wr x 2
)";

/// The one race (7, 15) of kSectionMustGoFirst, after one restricted
/// query that freezes the observed run `back` events before event 7; every
/// witness passes the schedule checker.
solver::RaceResult predictRestricted(uint32_t back) {
  trace::Trace t = parse(kSectionMustGoFirst);
  analysis::TraceIndex idx(t);
  solver::RaceOptions o;
  o.allPairs = true;
  o.restrictedBack = back;
  solver::RaceResult r = solver::predictRaces(idx, o);
  EXPECT_TRUE(r.unknowns.empty());
  EXPECT_EQ(r.stats.restrictedQueries, 1u);
  EXPECT_EQ(r.races.size(), 1u);
  for (const auto &f : r.races) {
    EXPECT_EQ(std::make_pair(f.first, f.second), std::make_pair(7u, 15u));
    std::vector<analysis::Step> steps = f.schedule.steps();
    std::vector<analysis::Step> prefix(steps.begin(), steps.end() - 2);
    EXPECT_EQ(analysis::checkRaceWitness(idx, prefix, f.first, f.second),
              std::nullopt);
  }
  return r;
}

TEST(RacePredictor, RestrictedQueryFindsASectionOrderTheGreedyCannot) {
  solver::RaceResult r = predictRestricted(3);
  ASSERT_EQ(r.races.size(), 1u);
  EXPECT_EQ(r.stats.restrictedWitnesses, 1u);
  EXPECT_EQ(r.stats.searchedWitnesses, 0u);
  // The frozen prefix runs as observed; t1's section (11-13) ends before
  // t0's first acquire (4).
  const std::vector<uint32_t> w = r.races[0].schedule.events();
  EXPECT_EQ(std::vector<uint32_t>(w.begin(), w.begin() + 4),
            (std::vector<uint32_t>{0, 1, 2, 3}));
  auto at = [&](uint32_t e) { return std::find(w.begin(), w.end(), e); };
  EXPECT_LT(at(13), at(4));
}

TEST(RacePredictor, AnUnsatRestrictedQueryProvesNothing) {
  EXPECT_EQ(predictRestricted(2).stats.restrictedWitnesses, 0u);
}
