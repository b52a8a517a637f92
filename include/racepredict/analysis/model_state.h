//===- analysis/model_state.h - One state of the maximal causal model -----===//
//
// The state reached by executing a prefix schedule (docs/semantics.md,
// "Schedules" and "Values and concreteness"): thread positions, lock holds,
// semaphore counts, memory with unknown (⊥) values, and which reads were
// concrete. `step` appends one step if it is enabled. The schedule checker
// (witness validation) and the replay planner are built on it.
//
#pragma once

#include "racepredict/analysis/trace_index.h"

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace racepredict::analysis {

struct Step;

class ModelState {
public:
  explicit ModelState(const TraceIndex &idx);

  /// The next event of thread `t` (kNone when it has run to its end) and
  /// whether its first half (wait release / barrier arrival) is done.
  EventId next(ThreadId t) const;
  bool inFirstHalf(ThreadId t) const { return half_[t]; }

  /// Why `s` is not enabled now (one clause: "m is held by t1"), or nullopt.
  std::optional<std::string> blocked(const Step &s) const;
  /// Executes `s`; precondition: blocked(s) is nullopt.
  void apply(const Step &s);

  /// Threads holding `lock` (in write mode only, if `writeOnly`).
  std::vector<ThreadId> holders(SymId lock, bool writeOnly) const;

  /// Whether a read-like event already executed saw its recorded value.
  bool concrete(EventId e) const { return concrete_[e] != 0; }

  /// Whether `e` (its whole step) / its first half has been executed.
  bool executed(EventId e) const { return executed_[e] != 0; }
  bool firstHalfDone(EventId e) const { return halfDone_[e] != 0; }
  /// Every event of `t` has been executed.
  bool finished(ThreadId t) const { return next(t) == kNone; }
  /// The current count of a semaphore of the trace.
  int64_t semCount(SymId sem) const { return semCount_.at(sem); }
  /// Arrival halves executed in barrier generation `g`.
  uint32_t arrivals(uint32_t g) const { return arrivals_[g]; }

private:
  bool heldByOther(SymId lock, ThreadId t, bool writeOnly) const;
  void acquire(SymId lock, ThreadId t, bool write);
  void release(SymId lock, ThreadId t);
  std::optional<std::string> branchBlocked(EventId e) const;
  void executeEffect(EventId e);

  struct Hold {
    ThreadId thread;
    bool write;
  };

  // Pointers, not references: states are copied and assigned (search).
  const TraceIndex *idx_;
  const trace::Trace *t_;
  std::vector<uint32_t> pos_;  ///< per thread: index into threadEvents
  std::vector<char> half_;     ///< per thread: first half of next() done
  std::vector<char> executed_; ///< per event
  std::vector<char> halfDone_; ///< per event: its first half executed
  std::vector<char> concrete_; ///< per event: read concrete / tryfail refails
  /// Per thread: every read-like event so far was concrete and every
  /// tryfail re-failed (the plain branch rule and value-concreteness).
  std::vector<char> allConcrete_;
  /// Per thread: every tryfail so far re-failed (precise branches).
  std::vector<char> tryfailsRefail_;
  std::unordered_map<SymId, std::vector<Hold>> holds_;
  std::unordered_map<SymId, int64_t> semCount_;
  std::unordered_map<SymId, std::optional<int64_t>> memory_;
  std::vector<uint32_t> arrivals_; ///< per barrier generation
  /// Waits woken by each notify (a notify needs them to be waiting).
  std::unordered_map<EventId, std::vector<EventId>> wokenBy_;
};

} // namespace racepredict::analysis
