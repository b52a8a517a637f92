//===- test/model/fast_stages_test.cpp - Fast stages change no verdict ----===//
//
// Issue 17: with --all-pairs, the stages before the solver — the closure
// fast path, witnesses cut from earlier ones (analysis/witness_reuse.h),
// the greedy value-keeping schedule on the slice (analysis/greedy_witness.h)
// and "no race" from forced writers (analysis/forced_writers.h) — decide
// exactly what the solver decides on every candidate alone
// (--no-fast-path), on random traces longer than the enumerator can take
// (the model differential tests compare the same default pipeline with the
// enumerator on short ones). Every reported witness passes the schedule
// checker, and no pair is unknown. The mixes must exercise the stages: some
// pairs are reused witnesses, some greedy schedules (some of them after a
// repair of a stuck run), some forced-writer refutations. The fast pipeline
// runs --all-pairs in two passes (the formula only after every cheap
// verdict), the solver-alone one in one. Closures that start from checkpoints
// of the observed run (analysis/observed_prefix.h; a few events apart here,
// hundreds by default) change no verdict either, only witnesses, and
// neither do the queries restricted to the events just before a pair
// (solver/pair_solver.h, solveRestricted; a few events here, 1,000 by
// default), whose "race" is an answer and whose "no race" is not.
//
#include "model_check.h"
#include "random_trace.h"

#include "racepredict/analysis/schedule_checker.h"
#include "racepredict/solver/race_predictor.h"
#include "racepredict/trace/text_format.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace racepredict;
using namespace racepredict::testsupport;

namespace {

struct Totals {
  size_t reused = 0, refuted = 0, searched = 0, repaired = 0, restricted = 0;
  /// Races whose witness differs from the one without checkpoints.
  size_t fromCheckpoints = 0;
};

/// `checkpoints`: RaceOptions::observedCheckpoints of the fast run (0: the
/// default); `restrictedBack`: RaceOptions::restrictedBack (0: the default,
/// longer than these traces).
void runMix(const TraceFeatures &f, uint64_t seedBase, int count,
            Totals *totals, size_t checkpoints = 0,
            uint32_t restrictedBack = 0) {
  RandomTraceOptions o;
  o.features = f;
  o.minEvents = 40;
  o.maxEvents = 80;
  o.maxLocations = 4;
  o.values = 3;
  seedBase = modelSeedBase(seedBase);
  int failures = 0;
  for (int i = 0; i < count; ++i) {
    uint64_t seed = seedBase + static_cast<uint64_t>(i);
    RandomTrace rt = randomTrace(seed, o);
    std::istringstream in(rt.text);
    auto t = trace::parseTextTrace(in, "random.rpt.txt");
    ASSERT_TRUE(static_cast<bool>(t)) << rt.text;
    analysis::TraceIndex idx(*t);
    solver::RaceOptions ro;
    ro.allPairs = true;
    ro.jobs = 2;
    if (restrictedBack > 0)
      ro.restrictedBack = restrictedBack;
    solver::RaceResult fast = solver::predictRaces(idx, ro);
    if (checkpoints > 0) { // the default ones are too far apart here
      solver::RaceOptions shared = ro;
      shared.observedCheckpoints = checkpoints;
      solver::RaceResult s = solver::predictRaces(idx, shared);
      for (size_t k = 0; k < s.races.size() && k < fast.races.size(); ++k)
        totals->fromCheckpoints +=
            s.races[k].schedule != fast.races[k].schedule;
      fast = std::move(s);
    }
    ro.noFastPath = true;
    solver::RaceResult alone = solver::predictRaces(idx, ro);
    totals->reused += fast.stats.reusedWitnesses;
    totals->refuted += fast.stats.propagatedUnsat;
    totals->searched += fast.stats.searchedWitnesses;
    totals->repaired += fast.stats.repairedWitnesses;
    totals->restricted += fast.stats.restrictedWitnesses;
    Pairs got, want;
    std::string why;
    for (const auto &r : fast.races) {
      got.insert({r.first, r.second});
      std::vector<analysis::Step> prefix = r.schedule.steps();
      prefix.resize(prefix.size() - 2);
      if (auto err = analysis::checkRaceWitness(idx, prefix, r.first, r.second))
        why += "  witness of (" + std::to_string(r.first) + "," +
               std::to_string(r.second) + ") rejected: " + *err + "\n";
    }
    for (const auto &r : alone.races)
      want.insert({r.first, r.second});
    if (got != want)
      why += "  fast stages = " + formatPairs(got) +
             "\n  solver alone = " + formatPairs(want) + "\n";
    if (!fast.unknowns.empty() || !alone.unknowns.empty())
      why += "  unknown pairs\n";
    if (fast.stats.candidates != alone.stats.candidates)
      why += "  different candidates\n";
    if (!why.empty() && ++failures <= 3)
      ADD_FAILURE() << "seed " << seed << "\n" << rt.text << why;
  }
  EXPECT_EQ(failures, 0) << "of " << count << " traces";
}

TEST(FastStagesChangeNoVerdict, CountersBranchesAndValues) {
  TraceFeatures f;
  f.counters = f.precise = true;
  Totals totals;
  runMix(f, 41000000, 150, &totals);
  EXPECT_GT(totals.reused, 0u);
  EXPECT_GT(totals.refuted, 0u);
  EXPECT_GT(totals.searched, 0u);
  EXPECT_GT(totals.repaired, 0u);
}

TEST(FastStagesChangeNoVerdict, WriteDependencesAndSync) {
  TraceFeatures f;
  f.counters = f.writeDeps = f.atomics = f.condvars = f.semaphores =
      f.barriers = f.rwlocks = f.tryfail = true;
  Totals totals;
  runMix(f, 42000000, 150, &totals);
  EXPECT_GT(totals.reused, 0u);
  EXPECT_GT(totals.refuted, 0u);
  EXPECT_GT(totals.searched, 0u);
  EXPECT_GT(totals.repaired, 0u);
}

} // namespace

TEST(FastStagesChangeNoVerdict, ClosuresFromCheckpointsOfTheObservedRun) {
  TraceFeatures f;
  f.counters = f.precise = f.writeDeps = f.condvars = f.semaphores =
      f.barriers = f.rwlocks = f.tryfail = true;
  Totals totals;
  runMix(f, 43000000, 150, &totals, 4);
  EXPECT_GT(totals.fromCheckpoints, 0u);
}

TEST(FastStagesChangeNoVerdict, QueriesRestrictedToTheEventsBeforeThePair) {
  TraceFeatures f;
  f.counters = f.precise = f.writeDeps = f.condvars = f.semaphores =
      f.barriers = f.rwlocks = f.tryfail = true;
  Totals totals;
  runMix(f, 44000000, 150, &totals, 0, 6);
  EXPECT_GT(totals.restricted, 0u);
}
