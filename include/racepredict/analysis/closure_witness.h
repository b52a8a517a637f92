//===- analysis/closure_witness.h - Fast witnesses without the solver -----===//
//
// Most races of a trace need no reordering beyond dropping events and
// moving a critical section or two: every read that matters keeps the
// writer it observed (a reads-from-preserving reordering, as SyncP,
// Mathur et al. POPL 2021, decides in polynomial time), and such a schedule
// is a witness of the maximal causal model too. The finder closes the two
// accesses' prefixes under what they need — program order, fork/join,
// notify/wait, barriers, the observed writer of every read that matters
// (a branch or a feeding write depends on it; if that writer lies beyond a
// or b, the latest earlier write of the same value), the holder of a failed
// trylock that matters, the posts before a semaphore wait, and for each
// lock: every section it takes must be complete except one, which runs
// last (a section holding a or b must stay open). The closure is then
// scheduled greedily in observed order, the open sections last, on the
// model's semantics (ModelState), applying a step only when the checker's
// rule enables it, and ends with the checker's final test
// (raceEnabledAfter): the schedule is validated as it is built. Only the
// candidates it cannot settle go to the SMT encoding, which alone decides "no
// race".
//
#pragma once

#include "racepredict/analysis/observed_prefix.h"
#include "racepredict/analysis/schedule_checker.h"
#include "racepredict/analysis/trace_index.h"
#include "racepredict/analysis/witness_schedule.h"

#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

namespace racepredict::analysis {

class ClosureWitnessFinder {
public:
  /// `checkpointSpacing` > 0: start closures from checkpoints of the
  /// observed run this many events apart or more, where they can (one
  /// replay of the trace up front; worth it when many candidates are
  /// decided, --all-pairs).
  explicit ClosureWitnessFinder(const TraceIndex &idx,
                                size_t checkpointSpacing = 0);

  /// A validated witness `σ·a·b` of the race (a, b), or nullopt if the
  /// closure needs a or b or its schedule gets stuck (then the solver
  /// decides). Thread-safe: `find` only reads shared state.
  std::optional<WitnessSchedule> find(EventId a, EventId b) const;
  /// `find`'s two halves: from a checkpoint of the observed run (nullopt
  /// without checkpoints, or when the latest usable one is event 0), then
  /// from event 0. The driver runs the cheap forced-writer refutation
  /// between them: a closure from event 0 that fails costs its prefix.
  std::optional<WitnessSchedule> findFromCheckpoint(EventId a, EventId b) const;
  std::optional<WitnessSchedule> findFromStart(EventId a, EventId b) const;

private:
  struct Closure;
  /// One closure and its schedule; `closeAll`: close every section that
  /// can close (Closure::closeAll). `closed`: whether the closure itself
  /// succeeded (else only its schedule failed).
  /// `start`: the checkpoint the closure starts from, or null (event 0).
  std::optional<WitnessSchedule>
  attempt(EventId a, EventId b, bool closeAll,
          const ObservedPrefix::Checkpoint *start, bool *closed) const;
  /// The latest write of r's value to r's location before r in the trace
  /// that the closure may take, or kNone.
  EventId earlierWriterOfValue(const Closure &c, EventId r) const;
  bool close(Closure &c) const;
  std::optional<WitnessSchedule>
  schedule(const Closure &c, const ObservedPrefix::Checkpoint *start) const;

  const TraceIndex &idx_;
  /// For each tryfail: the acquire of a write-mode section of another
  /// thread that held the lock when it failed, or kNone.
  std::unordered_map<EventId, EventId> failHolder_;
  std::unique_ptr<ObservedPrefix> prefix_; ///< null: every closure from 0
};

} // namespace racepredict::analysis
