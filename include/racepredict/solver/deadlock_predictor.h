//===- solver/deadlock_predictor.h - Predicted lock-order deadlocks -------===//
//
// Candidates are cycles of the lock nesting graph (analysis/lock_cycles.h);
// each is asked of the same maximal encoding as races (docs/semantics.md):
// a cut after which every request of the cycle is its thread's next event
// and every held section is open. A SAT model, cut, is validated by the
// schedule checker (checkDeadlockWitness) before it is reported.
//
#pragma once

#include "racepredict/analysis/lock_cycles.h"
#include "racepredict/analysis/schedule_checker.h"
#include "racepredict/analysis/trace_index.h"

#include <string>
#include <vector>

namespace racepredict::solver {

struct DeadlockOptions {
  /// Report every deadlocking cycle instead of one per source signature.
  bool allCycles = false;
  unsigned timeoutMs = 0; ///< per query; a time-out is `unknown`
  uint64_t rlimit = 0;
  bool noFilters = false;
  size_t maxCycles = 100000;
};

struct DeadlockFinding {
  /// The cycle: requests[i] waits for the lock requests[i+1]'s thread holds.
  std::vector<analysis::LockRequest> requests;
  /// Events in order; after them every request's thread is blocked.
  std::vector<analysis::EventId> witness;
  std::vector<analysis::Step> steps;
};

struct DeadlockStats {
  analysis::LockCycleStats cycles;
  size_t candidates = 0, solverCalls = 0, sat = 0, unsat = 0, unknown = 0;
  double seconds = 0;
};

struct DeadlockResult {
  std::vector<DeadlockFinding> deadlocks;
  /// Cycles the solver could not decide (time-out, budget), with a reason.
  std::vector<std::pair<std::vector<analysis::EventId>, std::string>> unknowns;
  DeadlockStats stats;
};

DeadlockResult predictDeadlocks(const analysis::TraceIndex &idx,
                                const DeadlockOptions &opts);

} // namespace racepredict::solver
