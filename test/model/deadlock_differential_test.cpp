//===- test/model/deadlock_differential_test.cpp - Deadlocks vs enumerator ===//
//
// Issue 6's soundness check: on random small traces of real executions
// with locks (nested, both modes), joins, semaphores, barriers and
// condition variables, the deadlock predictor (every deadlocking set, zero
// unknowns) finds exactly the signatures — the blocked threads' next events
// — of the brute-force enumerator of docs/semantics.md, with and without
// the search filters; every enumerator witness passes the schedule
// checker, which is independent of both. RACEPREDICT_MODEL_SCALE and
// RACEPREDICT_MODEL_SEED work as for the race differential test.
//
#include "deadlock_enumerator.h"
#include "deadlock_signature.h"
#include "random_trace.h"

#include "racepredict/solver/deadlock_predictor.h"
#include "racepredict/trace/text_format.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

using namespace racepredict;
using namespace racepredict::testsupport;

namespace {

std::string formatSteps(const std::vector<analysis::Step> &steps) {
  std::string s = "[";
  for (size_t i = 0; i < steps.size(); ++i)
    s += (i ? " " : "") + std::to_string(steps[i].event) +
         (steps[i].half ? "h" : "");
  return s + "]";
}

struct Check {
  bool ok = true;
  std::string message;
  size_t enumerated = 0;
  size_t states = 0;
  /// Blocked threads per reason kind in the predictor's findings.
  std::map<std::string, int> kinds;
};

Check checkTrace(const std::string &text, bool alsoNoFilters) {
  Check out;
  std::istringstream in(text);
  auto parsed = trace::parseTextTrace(in, "random.rpt.txt");
  if (!parsed) {
    out.ok = false;
    out.message = "parse error: " + parsed.error().message + "\n";
    return out;
  }
  analysis::TraceIndex idx(*parsed);
  DeadlockEnumeration en = enumerateDeadlocks(idx);
  out.states = en.states;
  out.enumerated = en.deadlocks.size();
  std::set<Signature> want;
  for (const auto &[sig, sigma] : en.deadlocks) {
    want.insert(sig);
    if (auto err = analysis::checkDeadlockWitness(idx, sigma, sig)) {
      out.ok = false;
      out.message += "schedule checker rejects the enumerator's witness " +
                     formatSteps(sigma) + " for " + formatSignatures({sig}) +
                     ": " + *err + "\n";
    }
  }
  if (en.truncated) {
    out.ok = false;
    out.message += "enumerator hit its state limit\n";
  }
  for (bool noFilters : {false, true}) {
    if (noFilters && !alsoNoFilters)
      continue;
    solver::DeadlockOptions o;
    o.allCycles = true;
    o.noFilters = noFilters;
    solver::DeadlockResult r = solver::predictDeadlocks(idx, o);
    std::set<Signature> got;
    std::string why;
    for (const auto &d : r.deadlocks) {
      Signature sig;
      for (const auto &b : d.blocked)
        sig.push_back(b.event);
      got.insert(sig);
      if (!noFilters)
        for (const auto &b : d.blocked)
          out.kinds[analysis::blockKindName(b.kind)] += 1;
      if (!en.deadlocks.count(sig))
        why += "  only the predictor finds " + formatSignatures({sig}) +
               ", witness steps " + formatSteps(d.steps) + "\n";
    }
    for (const auto &[sig, sigma] : en.deadlocks)
      if (!got.count(sig))
        why += "  only the enumerator finds " + formatSignatures({sig}) +
               ", σ = " + formatSteps(sigma) + "\n";
    if (!r.unknowns.empty())
      why += "  " + std::to_string(r.unknowns.size()) +
             " unknown, first: " + r.unknowns[0].second + "\n";
    if (r.stats.search.truncated)
      why += "  candidate search truncated\n";
    if (!why.empty()) {
      out.ok = false;
      out.message += std::string("predictor (") +
                     (noFilters ? "no filters" : "filters") +
                     ") = " + formatSignatures(got) +
                     "\nenumerator = " + formatSignatures(want) + "\n" + why;
    }
  }
  if (!out.ok)
    out.message = "trace:\n" + text + out.message;
  return out;
}

/// Checks `count` traces of one mix; every other one also without the
/// search filters. `kinds` must each block some thread in the findings
/// (so that every rule of the mix is exercised, not only lock cycles).
void runMix(const TraceFeatures &f, uint64_t seedBase, int count, int minEvents,
            int maxEvents, const std::vector<std::string> &kinds) {
  RandomTraceOptions o;
  o.features = f;
  o.features.deadlockProne = true;
  o.minEvents = minEvents;
  o.maxEvents = maxEvents;
  o.maxLocations = 2;
  int failures = 0, withDeadlocks = 0;
  size_t maxStates = 0;
  std::map<std::string, int> seen;
  count *= modelScale();
  seedBase = modelSeedBase(seedBase);
  for (int i = 0; i < count; ++i) {
    uint64_t seed = seedBase + static_cast<uint64_t>(i);
    RandomTrace rt = randomTrace(seed, o);
    Check c = checkTrace(rt.text, i % 2 == 0);
    withDeadlocks += c.enumerated > 0;
    maxStates = std::max(maxStates, c.states);
    for (const auto &[k, n] : c.kinds)
      seen[k] += n;
    if (!c.ok && ++failures <= 3)
      ADD_FAILURE() << "seed " << seed << "\n" << c.message;
  }
  EXPECT_EQ(failures, 0) << "of " << count << " traces";
  // The mix must stay interesting: a share of traces deadlock, through
  // every blocking rule the mix can produce.
  EXPECT_GE(withDeadlocks, count / 20) << "too few deadlocks";
  std::string tally;
  for (const auto &[k, n] : seen)
    tally += " " + k + "=" + std::to_string(n);
  for (const auto &k : kinds)
    EXPECT_GE(seen[k], 5) << "too few threads blocked by rule " << k << " ("
                          << tally << ")";
  std::printf("[ mix      ] %d traces, %d with deadlocks, max %zu states, "
              "blocked:%s\n",
              count, withDeadlocks, maxStates, tally.c_str());
}

} // namespace

TEST(DeadlockDifferential, NestedLocksAndJoins) {
  TraceFeatures f;
  f.rwlocks = true;
  runMix(f, 21000000, 3000, 8, 18, {"lock", "join", "not-created"});
}

TEST(DeadlockDifferential, Semaphores) {
  TraceFeatures f;
  f.semaphores = true;
  runMix(f, 22000000, 2000, 8, 18, {"semaphore", "join"});
}

TEST(DeadlockDifferential, Barriers) {
  TraceFeatures f;
  f.barriers = true;
  runMix(f, 23000000, 2000, 8, 18, {"barrier", "lock", "join"});
}

TEST(DeadlockDifferential, ConditionVariables) {
  TraceFeatures f;
  f.condvars = true;
  runMix(f, 24000000, 3000, 10, 22, {"condition", "lock", "join"});
}

TEST(DeadlockDifferential, Everything) {
  TraceFeatures f;
  f.rwlocks = f.tryfail = f.precise = f.condvars = f.barriers = f.semaphores =
      f.oddLocks = true;
  runMix(f, 25000000, 3000, 10, 22, {"lock", "join", "semaphore", "barrier"});
}

// Successful try-locks (std::lock's shape): never a member's request, but
// their locks are held.
TEST(DeadlockDifferential, TryAcquires) {
  TraceFeatures f;
  f.rwlocks = f.tryfail = f.tryAcquires = true;
  runMix(f, 27000000, 2000, 8, 18, {"lock", "join"});
}

// Issue 20: writes with dependence lists change which reads must keep
// their values, hence which branches a blocked thread can pass.
TEST(DeadlockDifferential, WriteDependences) {
  TraceFeatures f;
  f.rwlocks = f.tryfail = f.precise = f.writeDeps = f.oddLocks = true;
  runMix(f, 26000000, 1500, 10, 22, {"lock", "join"});
}
