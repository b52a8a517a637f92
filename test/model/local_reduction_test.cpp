//===- test/model/local_reduction_test.cpp - The reduction changes nothing ===//
//
// Issue 17: races are decided on the trace without the reads and writes of
// locations one thread alone touches (analysis/local_reduction.h). On
// random traces — with values flowing through private locations into
// listed branches and writes, plain and listed writers, allocations, atomics,
// waits, barriers and semaphores — the races found on the reduced trace,
// mapped back, are exactly those found on the whole trace, and every mapped
// witness is a valid schedule of the original trace (the schedule checker,
// not the solver, says so).
//
#include "model_check.h"
#include "random_trace.h"

#include "racepredict/analysis/local_reduction.h"
#include "racepredict/analysis/reduced_witness.h"
#include "racepredict/analysis/schedule_checker.h"
#include "racepredict/solver/race_predictor.h"
#include "racepredict/trace/text_format.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

using namespace racepredict;
using namespace racepredict::testsupport;

namespace {

solver::RaceResult races(const analysis::TraceIndex &idx) {
  solver::RaceOptions o;
  o.allPairs = true;
  // Closures from checkpoints even on short traces: witnesses then share
  // the observed run's first steps, which expandSchedules expands once.
  o.observedCheckpoints = 4;
  return solver::predictRaces(idx, o);
}

/// Mapped witnesses that share steps with others (expanded once).
size_t sharedWitnesses = 0;

std::string text(const trace::Trace &t) {
  std::ostringstream out;
  trace::writeTextTrace(t, out);
  return out.str();
}

/// What differs when `t` lends its tables to the reduction (analyze's path)
/// instead of having them copied (`red`): the reduced trace, or `t` once
/// they are given back. "" when nothing does.
std::string lendingChangesNothing(trace::Trace &t,
                                  const analysis::LocalReduction &red,
                                  size_t maxListed) {
  std::string before = text(t), why;
  analysis::LocalReduction lent =
      analysis::reduceThreadLocalLending(t, maxListed);
  if (t.table(trace::NameSpace::Location).size() != 0)
    why += "  the lending trace kept its location names\n";
  if (text(lent.trace) != text(red.trace) || lent.original != red.original)
    why += "  the reduced trace differs when the tables are lent\n";
  analysis::giveBackTables(lent, t);
  if (text(t) != before)
    why += "  the trace differs once its tables are given back\n";
  return why;
}

/// Checks `count` random traces; returns how many had something to drop.
int runMix(const TraceFeatures &f, uint64_t seedBase, int count, int maxEvents,
           int locations, size_t maxListed = 16) {
  RandomTraceOptions o;
  o.features = f;
  o.minEvents = maxEvents / 2;
  o.maxEvents = maxEvents;
  o.maxLocations = locations;
  seedBase = modelSeedBase(seedBase);
  int failures = 0, reduced = 0;
  for (int i = 0; i < count; ++i) {
    uint64_t seed = seedBase + static_cast<uint64_t>(i);
    RandomTrace rt = randomTrace(seed, o);
    std::istringstream in(rt.text);
    auto t = trace::parseTextTrace(in, "random.rpt.txt");
    if (!t) {
      ADD_FAILURE() << t.error().message << "\n" << rt.text;
      return reduced;
    }
    analysis::TraceIndex idx(*t);
    solver::RaceResult whole = races(idx);
    analysis::LocalReduction red = analysis::reduceThreadLocal(*t, maxListed);
    reduced += red.stats.keptEvents < red.stats.events;
    std::string lentWhy = lendingChangesNothing(*t, red, maxListed);
    analysis::TraceIndex ridx(red.trace);
    solver::RaceResult part = races(ridx);
    Pairs want, got;
    for (const auto &r : whole.races)
      want.insert({r.first, r.second});
    std::string why = lentWhy;
    // Expanded together, sharing what they share: the same steps as each
    // expanded alone.
    std::vector<analysis::WitnessSchedule> together;
    std::vector<analysis::WitnessSchedule *> refs;
    for (const auto &r : part.races)
      together.push_back(r.schedule);
    for (auto &w : together)
      refs.push_back(&w);
    analysis::expandSchedules(idx, red, refs, 2);
    for (size_t i = 0; i < part.races.size(); ++i) {
      const auto &r = part.races[i];
      EventId a = red.original[r.first], b = red.original[r.second];
      got.insert({a, b});
      std::vector<analysis::Step> w =
          analysis::expandSchedule(idx, red, r.schedule.steps(), 2);
      if (together[i].steps() != w)
        why += "  witness of (" + std::to_string(a) + "," + std::to_string(b) +
               ") expanded with the others differs\n";
      sharedWitnesses += together[i].sharedLength() > 0;
      if (auto err =
              analysis::checkRaceWitness(idx, {w.begin(), w.end() - 2}, a, b))
        why += "  witness of (" + std::to_string(a) + "," + std::to_string(b) +
               ") on the original trace: " + *err + "\n";
    }
    if (!whole.unknowns.empty() || !part.unknowns.empty())
      why += "  unknown candidates\n";
    if (got != want)
      why += "  reduced = " + formatPairs(got) + "\n";
    if (!why.empty() && ++failures <= 3)
      ADD_FAILURE() << "seed " << seed << "\n"
                    << rt.text << "whole trace = " << formatPairs(want) << "\n"
                    << why << "kept " << red.stats.keptEvents << " of "
                    << red.stats.events << " events";
  }
  return reduced;
}

} // namespace

TEST(LocalReduction, ReadsWritesLocksBranches) {
  TraceFeatures f;
  size_t before = sharedWitnesses;
  EXPECT_GT(runMix(f, 17000, 400 * modelScale(), 24, 5), 100);
  EXPECT_GT(sharedWitnesses, before); // expandSchedules shared something
}

TEST(LocalReduction, ValuesThroughPrivateLocations) {
  // Listed branches and writes over private reads whose writers are plain
  // or listed: what the reduction rewrites.
  EXPECT_GT(runMix(privatesAndLists(), 18000, 1500 * modelScale(), 40, 2),
            1000);
}

TEST(LocalReduction, AllocationsAtomicsTrylocks) {
  TraceFeatures f = privatesAndLists();
  f.allocs = true;
  f.atomics = true;
  f.tryfail = true;
  f.rwlocks = true;
  EXPECT_GT(runMix(f, 19000, 300 * modelScale(), 30, 6), 50);
}

TEST(LocalReduction, WaitsBarriersSemaphores) {
  TraceFeatures f = privatesAndLists();
  f.condvars = true;
  f.barriers = true;
  f.semaphores = true;
  EXPECT_GT(runMix(f, 20000, 300 * modelScale(), 30, 6), 50);
}

TEST(LocalReduction, ListsTooLongToCarry) {
  // Every local value that came from more than one read keeps one read of
  // it and its writer, whose rewritten list says the rest.
  EXPECT_GT(runMix(privatesAndLists(), 21000, 800 * modelScale(), 40, 2, 1),
            500);
}
