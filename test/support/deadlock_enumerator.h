//===- test/support/deadlock_enumerator.h - Brute-force deadlocks ---------===//
//
// Every deadlock of docs/semantics.md ("Deadlocks") found by visiting every
// reachable state of the model (model_explorer.h) and, in each, every set
// of unfinished threads: written from the definition, independently of the
// candidate generator, the encoding and the schedule checker, so that the
// differential test compares two implementations of it. Exponential; for
// traces of a few dozen events and a handful of threads.
//
#pragma once

#include "racepredict/analysis/schedule_checker.h"
#include "racepredict/analysis/trace_index.h"

#include <map>
#include <vector>

namespace racepredict::testsupport {

struct DeadlockEnumeration {
  /// Each deadlock signature (the blocked threads' next events, sorted)
  /// with a shortest schedule σ after which they are blocked for good.
  std::map<std::vector<analysis::EventId>, std::vector<analysis::Step>>
      deadlocks;
  size_t states = 0;
  bool truncated = false; ///< the state limit was hit: may be incomplete
};

DeadlockEnumeration enumerateDeadlocks(const analysis::TraceIndex &idx,
                                       size_t maxStates = 2000000);

} // namespace racepredict::testsupport
