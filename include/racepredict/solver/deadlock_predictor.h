//===- solver/deadlock_predictor.h - Predicted deadlocks of every kind ----===//
//
// Candidates (analysis/deadlock_candidates.h: ownership sets — lock cycles
// of any length, joins and thread creation — and hangs — semaphores,
// barriers, notifies nobody is left to give) are asked of the same maximal
// encoding as races — ownership sets on their slices (deadlock_slice.h),
// hangs on the whole trace (docs/semantics.md, "Deadlocks"): is there a
// feasible cut in which every member's thread is at its blocking event, with
// the threads the candidate's rules need finished? A SAT model, cut, is
// validated by the schedule checker (checkDeadlockWitness), which also
// gives each blocked thread's reason, before it is reported.
//
#pragma once

#include "racepredict/analysis/deadlock.h"
#include "racepredict/analysis/deadlock_candidates.h"
#include "racepredict/analysis/schedule_checker.h"
#include "racepredict/analysis/trace_index.h"
#include "racepredict/solver/decision_progress.h"

#include <string>
#include <vector>

namespace racepredict::solver {

struct DeadlockOptions {
  /// Report every deadlocking set of threads (the exact set the model
  /// admits, as the differential test compares it) instead of one per
  /// source signature, connected sets only, each not part of a larger one.
  bool allCycles = false;
  unsigned timeoutMs = 0; ///< per query; a time-out is `unknown`
  uint64_t rlimit = 0;
  /// --budget-s: seconds for deciding the candidates; those left when it
  /// is spent are `unknown` (never "no deadlock"). 0: none.
  double budgetSeconds = 0;
  bool noFilters = false;
  size_t maxCandidates = 100000;
  std::string dumpSmt2Dir; ///< non-empty: write each query as .smt2 here
  /// Decide every candidate on the whole-trace formula (issue 6's way),
  /// not ownership candidates on their slices (for comparison).
  bool wholeTrace = false;
  /// Slices start from the members' must-happen-before past alone (every
  /// helper behind an escape): tests use it to drive the expansion loop.
  bool lazySlices = false;
  /// Candidates decided / left (the command line's progress line).
  ProgressCallback onProgress;
  /// The must-happen-before order of this index, if the caller has it
  /// (analyze --races --deadlocks computes it once); null: computed here.
  const analysis::MustHappenBefore *order = nullptr;
};

struct DeadlockFinding {
  /// Each blocked thread: the event it never completes and why (from the
  /// schedule checker, on the witness), sorted by event.
  std::vector<analysis::BlockReason> blocked;
  /// Indices into `blocked` of the wait-for cycle (each waits for the
  /// next), empty when the deadlock has none (e.g. a semaphore).
  std::vector<size_t> cycle;
  std::string kind; ///< analysis::deadlockKind
  /// Events in order; after them every thread of `blocked` is stuck. The
  /// blocked events themselves are not part of it.
  std::vector<analysis::EventId> witness;
  /// The same schedule with the release/arrival halves of waits/barriers
  /// (a blocked wait or barrier has done its first half).
  std::vector<analysis::Step> steps;
};

struct DeadlockStats {
  analysis::DeadlockCandidateStats search;
  size_t candidates = 0, solverCalls = 0, sat = 0, unsat = 0, unknown = 0;
  /// Queries decided (or tried first) on a slice; their total slice size
  /// in units and how often a slice grew through an escape.
  size_t slicedCalls = 0, sliceUnits = 0, sliceExpansions = 0;
  double seconds = 0;
};

struct DeadlockResult {
  std::vector<DeadlockFinding> deadlocks; ///< sorted by blocked events
  /// Candidates the solver could not decide (time-out, budget): their
  /// blocked events and a reason.
  std::vector<std::pair<std::vector<analysis::EventId>, std::string>> unknowns;
  DeadlockStats stats;
};

DeadlockResult predictDeadlocks(const analysis::TraceIndex &idx,
                                const DeadlockOptions &opts);

} // namespace racepredict::solver
