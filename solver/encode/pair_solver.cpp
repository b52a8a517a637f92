//===- solver/encode/pair_solver.cpp - Decide one candidate on its slice --===//
#include "racepredict/solver/pair_solver.h"

#include "racepredict/analysis/greedy_witness.h"
#include "racepredict/solver/slice_encoding.h"

#include <algorithm>
#include <set>

namespace racepredict::solver {

using Clock = std::chrono::steady_clock;

namespace {

/// race(a, b) is part of every encoding of a slice with a racing pair.
void noQuery(SliceEncoding &, FormulaPool &) {}

/// σ·a·b: the prefix must leave a and b both enabled.
WitnessCheck raceCheck(const analysis::Slicer &slicer, analysis::EventId a,
                       analysis::EventId b) {
  return [&slicer, a, b](const std::vector<analysis::Step> &sigma) {
    std::vector<analysis::Step> prefix(sigma.begin(), sigma.end() - 2);
    return analysis::checkRaceWitness(slicer.index(), prefix, a, b);
  };
}

} // namespace

PairVerdict solvePair(const analysis::Slicer &slicer, QuerySolver *solver,
                      analysis::EventId a, analysis::EventId b,
                      const PairSolveOptions &opts) {
  analysis::PairSlice slice;
  if (!slicer.slice(a, b, &slice)) {
    PairVerdict v;
    v.status = CheckResult::Unsat; // ordered by must-happen-before
    return v;
  }
  if (opts.greedy) {
    bool repaired = false;
    if (auto w = analysis::findGreedyWitness(slicer.index(), slice, a, b,
                                             &repaired)) {
      PairVerdict v;
      v.status = CheckResult::Sat;
      v.searched = true;
      v.repaired = repaired;
      v.sliceUnits = slice.units();
      v.steps = std::move(*w);
      return v;
    }
  }
  if (!solver) {
    PairVerdict v;
    v.reason = kFormulaDeferred;
    v.sliceUnits = slice.units();
    return v;
  }
  return solveSlice(slicer, *solver, std::move(slice), noQuery,
                    raceCheck(slicer, a, b), opts);
}

PairVerdict solveRestricted(const analysis::Slicer &slicer, QuerySolver &solver,
                            analysis::EventId a, analysis::EventId b,
                            uint32_t back, const PairSolveOptions &opts) {
  PairVerdict deferred;
  deferred.reason = kFormulaDeferred;
  analysis::EventId first = std::min(a, b);
  // Under --window the slicer is restricted already.
  if (back == 0 || first <= back || slicer.options().windowBegin > 0 ||
      slicer.options().windowEnd != analysis::kNone)
    return deferred;
  analysis::SliceOptions so = slicer.options();
  so.windowBegin = first - back;
  analysis::Slicer restricted(slicer.index(), slicer.mhb(), so);
  analysis::PairSlice slice;
  if (!restricted.slice(a, b, &slice))
    return deferred; // ordered only with the prefix frozen
  PairVerdict v = solveSlice(restricted, solver, std::move(slice), noQuery,
                             raceCheck(slicer, a, b), opts);
  if (v.status != CheckResult::Sat) {
    deferred.checks = v.checks;
    deferred.sliceUnits = v.sliceUnits; // queried: not 0
    return deferred;
  }
  v.restricted = true;
  return v;
}

PairVerdict solveSlice(const analysis::Slicer &slicer, QuerySolver &solver,
                       analysis::PairSlice slice, const SliceQuery &query,
                       const WitnessCheck &check,
                       const PairSolveOptions &opts) {
  PairVerdict v;
  Clock::time_point deadline = opts.deadline;
  if (opts.timeoutMs)
    deadline = std::min(
        deadline, Clock::now() + std::chrono::milliseconds(opts.timeoutMs));
  auto remainingMs = [&]() -> int64_t {
    if (deadline == Clock::time_point::max())
      return 0; // no limit
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  deadline - Clock::now())
                  .count();
    return std::max<int64_t>(ms, 1);
  };
  auto timedOut = [&]() {
    return deadline != Clock::time_point::max() && Clock::now() >= deadline;
  };
  SliceEncoding::Learned learned;
  for (;;) {
    FormulaPool pool;
    SliceEncoding enc(slicer, slice, pool, opts.eagerLocks);
    query(enc, pool);
    v.sliceUnits = slice.units();
    if (enc.impossibleReadForced()) {
      v.status = CheckResult::Unsat;
      v.propagated = true;
      return v;
    }
    enc.relearn(learned);
    solver.reset(enc.differenceLogicOnly());
    solver.hintObservedOrder(enc.observedRanks(), enc.observedTrueBools());
    for (F f : enc.takeNew())
      solver.add(pool, f);
    bool grew = false;
    while (!grew) {
      if (v.checks >= opts.maxChecks || timedOut()) {
        v.status = CheckResult::Unknown;
        v.reason = v.checks >= opts.maxChecks ? "refinement limit" : "timeout";
        return v;
      }
      std::vector<F> assume = enc.assumptions();
      CheckLimits limits{
          static_cast<unsigned>(std::min<int64_t>(remainingMs(), 4294967295ll)),
          opts.rlimit};
      ++v.checks;
      CheckResult r = solver.check(pool, assume, enc.numOrderVars(), limits);
      v.orderVars = enc.numOrderVars();
      if (r.status == CheckResult::Unknown) {
        v.status = r.status;
        v.reason = r.reason;
        return v;
      }
      if (r.status == CheckResult::Unsat) {
        std::set<analysis::EventId> helpers;
        for (uint32_t k : r.core)
          for (analysis::EventId h : enc.escapes()[k].helpers)
            helpers.insert(h);
        if (helpers.empty()) {
          v.status = CheckResult::Unsat;
          return v;
        }
        size_t before = slice.units();
        slicer.extend(slice, {helpers.begin(), helpers.end()});
        if (slice.units() == before) {
          // Cannot happen: every helper is outside the slice and allowed.
          v.status = CheckResult::Unknown;
          v.reason = "internal error: slice expansion made no progress";
          return v;
        }
        ++v.expansions;
        learned = enc.learned();
        grew = true;
        continue;
      }
      std::vector<analysis::Step> sigma = enc.schedule(r.order);
      size_t added =
          enc.refine(sigma, [&](BoolVar x) { return solver.boolValue(x); });
      if (added) {
        solver.hintObservedOrder(enc.observedRanks(), enc.observedTrueBools());
        for (F f : enc.takeNew())
          solver.add(pool, f);
        continue;
      }
      if (slicer.options().windowBegin > 0) {
        std::vector<analysis::Step> full = enc.frozenPrefix();
        full.insert(full.end(), sigma.begin(), sigma.end());
        sigma.swap(full);
      }
      if (auto err = check(sigma)) {
        // Never trust a model blindly: an invalid witness is our bug.
        v.status = CheckResult::Unknown;
        v.reason = "internal error: witness failed validation: " + *err;
        return v;
      }
      v.status = CheckResult::Sat;
      v.steps = std::move(sigma);
      return v;
    }
  }
}

} // namespace racepredict::solver
