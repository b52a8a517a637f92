//===- test/model/deadlock_slicing_test.cpp - Sliced deadlocks = whole ----===//
//
// Deadlock queries on per-candidate slices (solver/deadlock_slice.h,
// docs/slicing.md, "Deadlock queries") decide exactly what the whole-trace
// formula decides: on random deadlock-prone traces, the set of deadlocking
// signatures (every set, with and without the search filters) is the same
// with --whole-trace, with slices (helpers up front) and with lazy slices
// (every helper behind an escape, so the expansion loop runs), with no
// unknown. Short traces are the deadlock differential test's mixes (that
// test checks the default, sliced, predictor against the enumerator);
// longer ones, beyond the enumerator, have slices strictly smaller than the
// trace. RACEPREDICT_MODEL_SEED works as for the other model tests.
//
#include "deadlock_signature.h"
#include "random_trace.h"

#include "racepredict/solver/deadlock_predictor.h"
#include "racepredict/trace/text_format.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <sstream>

using namespace racepredict;
using namespace racepredict::testsupport;

namespace {

struct Config {
  const char *name;
  bool wholeTrace, lazySlices;
};

const Config kConfigs[] = {
    {"whole trace", true, false},
    {"slices", false, false},
    {"lazy slices", false, true},
};

struct Tally {
  int withDeadlocks = 0;
  size_t sliced = 0, expansions = 0;
  /// Sliced queries whose slice misses part of the trace's units.
  size_t smaller = 0;
};

std::set<Signature> predict(const analysis::TraceIndex &idx, const Config &c,
                            bool noFilters, std::string *why, Tally *tally) {
  solver::DeadlockOptions o;
  o.allCycles = true;
  o.noFilters = noFilters;
  o.wholeTrace = c.wholeTrace;
  o.lazySlices = c.lazySlices;
  solver::DeadlockResult r = solver::predictDeadlocks(idx, o);
  std::set<Signature> got;
  for (const auto &d : r.deadlocks) {
    Signature sig;
    for (const auto &b : d.blocked)
      sig.push_back(b.event);
    got.insert(sig);
  }
  if (!r.unknowns.empty())
    *why += std::string("  ") + c.name + ": " +
            std::to_string(r.unknowns.size()) +
            " unknown, first: " + r.unknowns[0].second + "\n";
  if (r.stats.search.truncated)
    *why += std::string("  ") + c.name + ": candidate search truncated\n";
  if (c.wholeTrace && r.stats.slicedCalls != 0)
    *why += "  --whole-trace sliced a query\n";
  tally->sliced += r.stats.slicedCalls;
  if (c.lazySlices)
    tally->expansions += r.stats.sliceExpansions;
  // Units of the whole trace: two per event.
  size_t total = 2 * idx.trace().events.size();
  if (r.stats.slicedCalls > 0 &&
      r.stats.sliceUnits < r.stats.slicedCalls * total)
    tally->smaller += 1;
  return got;
}

Tally runMix(const TraceFeatures &f, uint64_t seedBase, int count,
             int minEvents, int maxEvents) {
  RandomTraceOptions o;
  o.features = f;
  o.features.deadlockProne = true;
  o.minEvents = minEvents;
  o.maxEvents = maxEvents;
  o.maxLocations = 2;
  seedBase = modelSeedBase(seedBase);
  Tally tally;
  int failures = 0;
  for (int i = 0; i < count; ++i) {
    uint64_t seed = seedBase + static_cast<uint64_t>(i);
    RandomTrace rt = randomTrace(seed, o);
    std::istringstream in(rt.text);
    auto t = trace::parseTextTrace(in, "random.rpt.txt");
    EXPECT_TRUE(static_cast<bool>(t)) << rt.text;
    if (!t)
      continue;
    analysis::TraceIndex idx(*t);
    std::string why;
    for (bool noFilters : {false, true}) {
      if (noFilters && i % 2)
        continue; // every other trace also without the search filters
      std::set<Signature> reference =
          predict(idx, kConfigs[0], noFilters, &why, &tally);
      if (!noFilters)
        tally.withDeadlocks += !reference.empty();
      for (const Config &c : kConfigs) {
        if (c.wholeTrace)
          continue;
        std::set<Signature> got = predict(idx, c, noFilters, &why, &tally);
        if (got != reference)
          why += std::string("  ") + c.name +
                 (noFilters ? " (no filters)" : "") + " = " +
                 formatSignatures(got) +
                 ", whole trace = " + formatSignatures(reference) + "\n";
      }
    }
    if (!why.empty() && ++failures <= 3)
      ADD_FAILURE() << "seed " << seed << "\n" << rt.text << why;
  }
  EXPECT_EQ(failures, 0) << "of " << count << " traces";
  // The comparison must mean something: deadlocks are found and queries
  // are sliced (the callers check the rest).
  EXPECT_GE(tally.withDeadlocks, count / 40) << "too few deadlocks";
  EXPECT_GT(tally.sliced, 0u);
  return tally;
}

} // namespace

TEST(DeadlockSlicingChangesNoVerdict, NestedLocksAndJoins) {
  TraceFeatures f;
  f.rwlocks = true;
  runMix(f, 31000000, 2000, 8, 18);
}

TEST(DeadlockSlicingChangesNoVerdict, ValuesTrylocksAndOddLocks) {
  TraceFeatures f;
  f.rwlocks = f.tryfail = f.precise = f.oddLocks = f.atomics = true;
  runMix(f, 32000000, 2000, 8, 20);
}

TEST(DeadlockSlicingChangesNoVerdict, WaitsBarriersSemaphores) {
  TraceFeatures f;
  f.condvars = f.barriers = f.semaphores = f.precise = true;
  runMix(f, 33000000, 2000, 10, 22);
}

// Beyond the enumerator: longer runs, where a member's slice leaves out
// what the other threads do after it.
TEST(DeadlockSlicingChangesNoVerdict, LongerTracesAgainstTheWholeFormula) {
  TraceFeatures f;
  f.rwlocks = f.tryfail = f.precise = f.condvars = f.semaphores = true;
  Tally t = runMix(f, 34000000, 400, 40, 70);
  EXPECT_GT(t.smaller, 0u) << "no slice was smaller than the trace";
  // Short deadlock-prone traces rarely need a helper the must-past lacks;
  // these do, so lazy slices grow through escapes here.
  EXPECT_GT(t.expansions, 0u) << "the expansion loop never ran";
}
