//===- test/model/differential_test.cpp - SMT predictor vs enumerator -----===//
//
// Issue 3's "how we will know": on thousands of random small traces of real
// executions, the SMT predictor (all pairs, zero unknowns) finds exactly the
// races of the brute-force enumerator of docs/semantics.md, with and
// without the cheap filters, and every enumerator witness passes the
// schedule checker. Each TEST covers one feature mix over its own seed range.
// RACEPREDICT_MODEL_SCALE=N multiplies the number of traces and
// RACEPREDICT_MODEL_SEED=K moves every seed range by K·10^9 (long sweeps
// over fresh traces; a failure prints its seed).
//
#include "model_check.h"
#include "random_trace.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

using namespace racepredict::testsupport;

namespace {

/// Checks `count` traces of one mix; every `noFilterEvery`-th one also
/// without the filters. Stops reporting after a few failures.
void runMix(const TraceFeatures &f, uint64_t seedBase, int count,
            int minEvents = 6, int maxEvents = 16, int locations = 3,
            int noFilterEvery = 2) {
  RandomTraceOptions o;
  o.features = f;
  o.minEvents = minEvents;
  o.maxEvents = maxEvents;
  o.maxLocations = locations;
  int failures = 0, withRaces = 0;
  size_t maxStates = 0;
  count *= modelScale();
  seedBase = modelSeedBase(seedBase);
  for (int i = 0; i < count; ++i) {
    uint64_t seed = seedBase + static_cast<uint64_t>(i);
    RandomTrace rt = randomTrace(seed, o);
    ModelCheck c =
        checkAgainstModel(rt.text, rt.reproducible, i % noFilterEvery == 0);
    withRaces += !c.enumerated.empty();
    maxStates = std::max(maxStates, c.states);
    if (!c.ok && ++failures <= 3)
      ADD_FAILURE() << "seed " << seed << "\n" << c.message;
  }
  EXPECT_EQ(failures, 0) << "of " << count << " traces";
  // The mix must stay interesting: a good share of traces has races.
  EXPECT_GT(withRaces, count / 5) << "too few racy traces";
  std::printf("[ mix      ] %d traces, %d with races, max %zu states\n", count,
              withRaces, maxStates);
}

} // namespace

TEST(Differential, ReadsWritesLocksBranches) {
  TraceFeatures f;
  runMix(f, 1000000, 600);
}

TEST(Differential, AtomicsAndPreciseBranches) {
  TraceFeatures f;
  f.atomics = true;
  f.precise = true;
  runMix(f, 2000000, 500);
}

TEST(Differential, ReadWriteLocksAndTrylocks) {
  TraceFeatures f;
  f.rwlocks = true;
  f.tryfail = true;
  f.precise = true;
  runMix(f, 3000000, 400);
}

TEST(Differential, ConditionVariables) {
  TraceFeatures f;
  f.condvars = true;
  f.precise = true;
  runMix(f, 4000000, 400);
}

TEST(Differential, BarriersAndSemaphores) {
  TraceFeatures f;
  f.barriers = true;
  f.semaphores = true;
  f.locks = false;
  runMix(f, 5000000, 400);
}

TEST(Differential, Everything) {
  TraceFeatures f;
  f.rwlocks = f.tryfail = f.atomics = f.precise = f.condvars = f.barriers =
      f.semaphores = f.allocs = f.channels = true;
  runMix(f, 6000000, 500);
}

// Longer traces over fewer locations: the rules that need a chain of
// events (value-concrete writes feeding another thread's branch, a notify
// waking a wait with accesses on both sides, semaphore hand-offs) show up
// far more often (measured by mutating the enumerator: each rule flips
// the race set of some trace here).
TEST(Differential, LongValueChains) {
  TraceFeatures f;
  f.locks = false;
  f.atomics = f.precise = true;
  runMix(f, 7000000, 600, 12, 22, 2);
}

TEST(Differential, LongConditionVariablesAndSemaphores) {
  TraceFeatures f;
  f.condvars = f.semaphores = f.precise = true;
  runMix(f, 9000000, 600, 12, 22, 2);
}

TEST(Differential, LongEverything) {
  TraceFeatures f;
  f.rwlocks = f.tryfail = f.atomics = f.precise = f.condvars = f.barriers =
      f.semaphores = true;
  runMix(f, 8000000, 600, 12, 22, 2);
}

TEST(Differential, RecursiveAndStrayLockOperations) {
  TraceFeatures f;
  f.rwlocks = f.tryfail = f.condvars = f.precise = f.oddLocks = true;
  runMix(f, 10000000, 400);
}
