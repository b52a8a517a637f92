//===- solver/pair_solver.h - Decide one candidate on its slice ---------===//
//
// The loop of docs/slicing.md: encode the slice, check with every escape
// assumed false; a model whose schedule violates a lazy constraint adds it
// and checks again; an unsat core that contains escapes grows the slice by
// their helpers and starts over; an unsat core without escapes is "no
// race" (the sliced formula with free escapes over-approximates the
// whole-trace formula); a model that violates nothing is a witness, which
// the schedule checker validates.
//
#pragma once

#include "racepredict/analysis/pair_slice.h"
#include "racepredict/analysis/schedule_checker.h"
#include "racepredict/solver/order_solver.h"

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace racepredict::solver {

struct PairSolveOptions {
  unsigned timeoutMs = 0; ///< for the whole pair (all rounds); 0 = none
  uint64_t rlimit = 0;    ///< per check
  /// Lock-exclusion clauses up front up to this many section pairs.
  size_t eagerLocks = 4096;
  /// Checks per pair before giving up as unknown.
  size_t maxChecks = 2000;
  /// Try the greedy value-keeping schedule (analysis/greedy_witness.h)
  /// before building the formula.
  bool greedy = false;
  /// Absolute deadline (the trace budget); max() = none.
  std::chrono::steady_clock::time_point deadline =
      std::chrono::steady_clock::time_point::max();
};

/// The reason of a pair left open without a solver (solvePair).
inline constexpr const char *kFormulaDeferred = "formula deferred";

struct PairVerdict {
  CheckResult::Status status = CheckResult::Unknown;
  std::vector<analysis::Step> steps; ///< Sat: σ·a·b
  std::string reason;                ///< Unknown
  size_t checks = 0;                 ///< solver checks
  size_t expansions = 0;             ///< slice growths
  size_t sliceUnits = 0;             ///< final slice size
  size_t orderVars = 0;              ///< named nodes of the final formula
  /// Unsat without a solver check: a read every witness needs has no
  /// writer (SliceEncoding::impossibleReadForced).
  bool propagated = false;
  /// Sat by the greedy schedule, without a formula.
  bool searched = false;
  /// Of those: after a repair of a stuck run (analysis/greedy_witness.h).
  bool repaired = false;
  /// Sat by the restricted query (solveRestricted).
  bool restricted = false;
};

/// `solver` null: only the stages before the formula (the greedy schedule);
/// a pair they leave open is Unknown with reason kFormulaDeferred.
PairVerdict solvePair(const analysis::Slicer &slicer, QuerySolver *solver,
                      analysis::EventId a, analysis::EventId b,
                      const PairSolveOptions &opts);

/// The same race query restricted to the last `back` events before the
/// earlier of a and b (issue 17, `mixed`): everything observed before them
/// is frozen and runs first, as the windows of `--window` do, so the
/// formula orders only the events from there on (on `mixed` 10K about
/// 1,000 order variables instead of 6,000, 0.5 s instead of 7–60 s). Its
/// model is a witness of the whole trace (the frozen prefix, then its
/// schedule), which the schedule checker validates. Only Sat is an answer:
/// unsat or a time-out of a restricted query proves nothing, so the pair is
/// then left Unknown with reason kFormulaDeferred for the full query
/// (`sliceUnits` 0: no restricted query applies, the pair is within `back`
/// events of the trace's start or the slicer is windowed already).
PairVerdict solveRestricted(const analysis::Slicer &slicer, QuerySolver &solver,
                            analysis::EventId a, analysis::EventId b,
                            uint32_t back, const PairSolveOptions &opts);

class SliceEncoding;

/// The same loop for any query over a slice (deadlocks, issue 6): `query`
/// adds the query's constraints to each encoding of the (growing) slice;
/// `check` validates a model's schedule (SliceEncoding::schedule, after
/// the frozen prefix in window mode) and returns why it is no witness.
/// Sat: `steps` is that schedule.
using SliceQuery = std::function<void(SliceEncoding &, FormulaPool &)>;
using WitnessCheck = std::function<std::optional<std::string>(
    const std::vector<analysis::Step> &)>;
PairVerdict solveSlice(const analysis::Slicer &slicer, QuerySolver &solver,
                       analysis::PairSlice slice, const SliceQuery &query,
                       const WitnessCheck &check, const PairSolveOptions &opts);

} // namespace racepredict::solver
