//===- analysis/closure_witness.h - Fast witnesses without the solver -----===//
//
// Most races of a trace need no reordering beyond dropping events: the
// observed order restricted to what the two accesses causally need (program
// order, fork/join, notify/wait, barriers, the observed writer of every
// read, the previous holder of every lock, the posts before every semaphore
// wait) is already a witness. This is the "causally-precedes closure" of
// Smaragdakis et al. (POPL 2012) used as a fast path: the schedule it builds
// is validated by the schedule checker, and only the candidates it cannot
// settle go to the SMT encoding, which alone decides "no race".
//
#pragma once

#include "racepredict/analysis/schedule_checker.h"
#include "racepredict/analysis/trace_index.h"

#include <optional>
#include <unordered_map>
#include <vector>

namespace racepredict::analysis {

class ClosureWitnessFinder {
public:
  explicit ClosureWitnessFinder(const TraceIndex &idx);

  /// A validated witness `σ·a·b` of the race (a, b), or nullopt if the
  /// closure contains a or b or its schedule is not valid (then the solver
  /// decides). Thread-safe: `find` only reads shared state.
  std::optional<std::vector<Step>> find(EventId a, EventId b) const;

private:
  /// Per-thread prefix lengths: the closure is a prefix of every thread.
  using Prefix = std::vector<uint32_t>;
  bool close(Prefix &upto, EventId a, EventId b) const;
  void needLockFree(EventId e, trace::SymId lock, bool readMode,
                    std::vector<EventId> &need) const;

  /// The observed writer of a read-like event (kNone: initial value).
  EventId observedWriter(EventId r) const;

  const TraceIndex &idx_;
  /// For each tryfail: the acquire of a write-mode section of another
  /// thread that held the lock when it failed, or kNone.
  std::unordered_map<EventId, EventId> failHolder_;
};

} // namespace racepredict::analysis
