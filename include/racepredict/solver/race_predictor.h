//===- solver/race_predictor.h - Maximal race prediction over one trace ---===//
//
// Candidates (conflicting pairs) → cheap sound filters → one SMT query per
// remaining candidate (docs/semantics.md) → witness, validated by the
// schedule checker before it is reported.
//
#pragma once

#include "racepredict/analysis/schedule_checker.h"
#include "racepredict/analysis/trace_index.h"
#include "racepredict/analysis/witness_schedule.h"
#include "racepredict/solver/decision_progress.h"

#include <cstdint>
#include <string>
#include <vector>

namespace racepredict::analysis {
class MustHappenBefore;
}

namespace racepredict::solver {

using analysis::EventId;

struct RaceOptions {
  /// Report every racing event pair instead of one per source-location pair.
  bool allPairs = false;
  /// Per-query time-out in milliseconds (0 = none). A time-out is `unknown`.
  unsigned timeoutMs = 0;
  /// Machine-independent per-query budget (Z3 rlimit; 0 = none).
  uint64_t rlimit = 0;
  /// Worker threads; output is identical for every value.
  unsigned jobs = 1;
  /// Skip the lockset and must-happen-before filters (for testing that they
  /// only drop pairs the solver would reject).
  bool noFilters = false;
  /// Directory to dump every query as .smt2 (empty = off).
  std::string dumpSmt2Dir;
  /// Stop after the filters: count candidates, solve nothing.
  bool candidatesOnly = false;
  /// Skip the closure fast path: every candidate goes to the solver (for
  /// testing the encoding alone).
  bool noFastPath = false;
  /// Decide candidates with the one shared whole-trace formula of issue 3
  /// instead of per-candidate slices (for comparison and tests).
  bool wholeTrace = false;
  /// Slices start from the must-happen-before past only; every helper
  /// comes through an escape (tests: exercises the expansion loop).
  bool lazySlices = false;
  /// Lock-exclusion clauses of a slice up front up to this many section
  /// pairs, lazily beyond (tests set 0 to exercise the lazy path).
  size_t eagerLockPairs = 4096;
  /// Solving budget for the whole trace in seconds (0 = none): candidates
  /// not decided in time are unknown, never "no race".
  double budgetSeconds = 0;
  /// RVPredict-style fixed windows of this many events (0 = none): only
  /// pairs inside one window are candidates, and each is decided with the
  /// events before its window run as observed (for comparison: windows
  /// lose every race whose accesses fall in different windows).
  uint32_t window = 0;
  /// Nearest candidates kept per signature group before the group is
  /// enumerated in full (tests set 1 to exercise the full enumeration).
  size_t keepPerGroup = 16;
  /// --all-pairs: closures start from states of the observed run kept at
  /// least this many events apart (analysis/observed_prefix.h); 0: every
  /// closure from event 0 (tests set a few to exercise short traces).
  size_t observedCheckpoints = 256;
  /// --all-pairs: before a candidate's full query, a query with the
  /// observed run frozen up to this many events before the earlier of the
  /// pair (solver/pair_solver.h, solveRestricted); 0: none. On `mixed` 10K
  /// 500 / 1,000 / 2,000 / 4,000 events settle 22 / 32 / 15 / 1 of 120
  /// (the wider ones time out: bench/RESULTS.md); tests set a few.
  uint32_t restrictedBack = 1000;
  /// Called (under a lock, from any worker) whenever a candidate is decided
  /// or the number left changes: the command line's progress line.
  ProgressCallback onProgress;
  /// The must-happen-before order of this index, if the caller has it
  /// (analyze --races --deadlocks computes it once); null: computed here.
  const analysis::MustHappenBefore *order = nullptr;
};

struct RaceFinding {
  EventId first; ///< first < second
  EventId second;
  /// The schedule, ending with the two racing events, with the
  /// release/arrival halves of waits/barriers; its events (`events()`, the
  /// reports' "witness") are its steps that are not halves. With
  /// --all-pairs most of it is shared with other findings (the observed
  /// run up to a checkpoint): expand it one finding at a time.
  analysis::WitnessSchedule schedule;
};

struct UnknownPair {
  EventId first, second;
  std::string reason; ///< e.g. "timeout"
};

struct RaceStats {
  size_t events = 0;
  size_t conflictingPairs = 0; ///< all conflicting event pairs (COPs)
  size_t filteredMhb = 0;      ///< dropped: ordered by must-happen-before
  size_t filteredLockset = 0;  ///< dropped: a common lock is held
  /// Pairs that reached the solver stage: by default the nearest pairs of
  /// each signature group (analysis/candidate_groups.h), with --all-pairs
  /// every filtered pair.
  size_t candidates = 0;
  size_t closureWitnesses = 0; ///< races settled without the solver
  /// Of those, --all-pairs: cut from another pair's witness
  /// (analysis/witness_reuse.h).
  size_t reusedWitnesses = 0;
  /// Of closureWitnesses: found by the greedy schedule on the slice
  /// (analysis/greedy_witness.h).
  size_t searchedWitnesses = 0;
  /// Of searchedWitnesses: after a repair of a stuck run.
  size_t repairedWitnesses = 0;
  /// --all-pairs: restricted queries (RaceOptions::restrictedBack) and,
  /// of those, the races they settled (each also a solver call).
  size_t restrictedQueries = 0;
  size_t restrictedWitnesses = 0;
  /// No race, without a solver check (a read every witness needs has no
  /// writer left: analysis/forced_writers.h, pair_solver.h).
  size_t propagatedUnsat = 0;
  size_t solverCalls = 0;
  size_t sat = 0, unsat = 0, unknown = 0;
  size_t solverChecks = 0;    ///< sliced: checks over all candidates
  size_t sliceExpansions = 0; ///< sliced: escapes that grew a slice
  size_t maxSliceUnits = 0;   ///< sliced: the largest slice (nodes)
  size_t maxOrderVars = 0;    ///< sliced: the largest formula (named nodes)
  unsigned mhbPasses = 0;     ///< passes of the must-happen-before clocks
  double mhbSeconds = 0;      ///< computing them (part of filterSeconds)
  double filterSeconds = 0;   ///< index, MHB clocks, candidates, filters
  double fastSeconds = 0;     ///< closure witnesses (stage 1)
  double encodeSeconds = 0;   ///< building the base formula and queries
  double solveSeconds = 0;    ///< wall time of the solver stage
  double seconds = 0;         ///< everything
};

struct RaceResult {
  std::vector<RaceFinding> races; ///< sorted by (first, second)
  std::vector<UnknownPair> unknowns;
  RaceStats stats;
};

RaceResult predictRaces(const analysis::TraceIndex &idx,
                        const RaceOptions &opts);

} // namespace racepredict::solver
