//===- analysis/lock_cycles.h - Deadlock candidates from lock nesting -----===//
//
// A lock-order deadlock needs threads t1..tk (k >= 2, distinct) and locks
// l1..lk (distinct) where ti requests l(i+1) while holding li (the request
// event is its next event, the holder's section is open). Candidates are the
// cycles of the nesting graph of the trace (Carril 2017 §4.3: the deadlocks
// the CSP model admits are cycles of held/requested locks; Joshi et al.'s
// iGoodlock shape); whether a cycle can actually be reached is decided by
// the SMT encoding (solver/deadlock_predictor.h).
//
#pragma once

#include "racepredict/analysis/mhb.h"
#include "racepredict/analysis/trace_index.h"

#include <vector>

namespace racepredict::analysis {

/// One thread's part of a cycle: it holds `held` (a section of its own)
/// and its next event `request` acquires another cycle lock.
struct LockRequest {
  EventId request;
  uint32_t held; ///< index into TraceIndex::sections()
};

struct LockCycle {
  /// requests[i] waits for the lock held by requests[(i+1) % k]'s thread.
  std::vector<LockRequest> requests;
  /// Signature group: cycles whose request source locations are the same
  /// (up to rotation) are one finding in the default report.
  uint32_t group;
};

struct LockCycleOptions {
  /// Drop cycles that provably cannot be reached: two requests ordered by
  /// must-happen-before, or a common lock held at every request (a "gate"
  /// lock). Accelerators only: the solver decides the rest.
  bool filters = true;
  /// Stop after this many candidate cycles (0 = no limit).
  size_t maxCycles = 100000;
};

struct LockCycleStats {
  size_t edges = 0;         ///< nested acquisitions (held -> requested)
  size_t cycles = 0;        ///< cycles found before filters
  size_t filteredMhb = 0;   ///< dropped: requests ordered by MHB
  size_t filteredGuard = 0; ///< dropped: a common gate lock
  bool truncated = false;   ///< maxCycles reached
};

std::vector<LockCycle> findLockCycles(const TraceIndex &idx,
                                      const MustHappenBefore &mhb,
                                      const LockCycleOptions &opts,
                                      LockCycleStats *stats);

} // namespace racepredict::analysis
