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
  /// Whether an event of this kind is enabled whenever it is the next event
  /// of its thread and that thread has been forked: `blocked` checks nothing
  /// else for it (accesses, forks, releases, posts; not locks, waits,
  /// barriers, joins, semaphore waits, channels, branches).
  static bool enabledWhenNext(trace::EventKind k);
  /// Executes `s`; precondition: blocked(s) is nullopt.
  void apply(const Step &s);

  /// Threads holding `lock` (in write mode only, if `writeOnly`).
  std::vector<ThreadId> holders(SymId lock, bool writeOnly) const;

  /// Whether a read-like event already executed saw its recorded value (a
  /// tryfail: whether it failed again).
  bool concrete(EventId e) const;
  /// Whether read-like `e`, executed now, would be concrete: a read (an
  /// rmw's read half) would see its recorded value, a tryfail would fail
  /// again. Without executing it.
  bool wouldBeConcrete(EventId e) const;
  /// The current value of a location (nullopt: unknown, ⊥).
  std::optional<int64_t> valueOf(SymId loc) const;
  /// Whether a precise branch's or write's listed reads are concrete and
  /// its thread's tryfails so far re-failed (docs/semantics.md).
  bool depsConcrete(const trace::Event &ev) const;
  /// Whether `e` (its second half, for a wait or barrier) has executed.
  bool executed(EventId e) const;

  /// Whether executing the first half `h` now would enable `s`; the state
  /// is unchanged afterwards (an apply/undo, no copy of the state).
  bool halfEnables(const Step &h, const Step &s);

  /// Whether the first half of `e` (or all of it) has been executed.
  bool firstHalfDone(EventId e) const { return halfDone(e); }
  /// Every event of `t` has been executed.
  bool finished(ThreadId t) const { return next(t) == kNone; }
  /// The current count of a semaphore of the trace.
  int64_t semCount(SymId s) const;
  /// Entries the state holds besides its per-thread ones (what a copy
  /// costs beyond O(threads)).
  size_t footprint() const {
    return notConcrete_.size() + holds_.size() + semCount_.size() +
           memory_.size() + arrivals_.size();
  }
  /// Arrival halves executed in barrier generation `g`.
  uint32_t arrivals(uint32_t g) const {
    auto it = arrivals_.find(g);
    return it == arrivals_.end() ? 0 : it->second;
  }

private:
  bool heldByOther(SymId lock, ThreadId t, bool writeOnly) const;
  void acquire(SymId lock, ThreadId t, bool write);
  void release(SymId lock, ThreadId t);
  std::optional<std::string> branchBlocked(EventId e) const;
  void executeEffect(EventId e);
  bool halfDone(EventId e) const;

  struct Hold {
    ThreadId thread;
    bool write;
  };

  // Pointers, not references: states are copied and assigned (search).
  // Construction is O(threads): everything per event or per object is
  // derived from the positions or filled on first use, so that validating a
  // witness costs its length, not the trace's.
  const TraceIndex *idx_;
  const trace::Trace *t_;
  std::vector<uint32_t> pos_; ///< per thread: index into threadEvents
  std::vector<char> half_;    ///< per thread: first half of next() done
  /// Executed read-likes that were not concrete and tryfails that did not
  /// fail again (the exceptions; usually none).
  std::unordered_map<EventId, char> notConcrete_;
  /// Per thread: every read-like event so far was concrete and every
  /// tryfail re-failed (the plain branch rule and value-concreteness).
  std::vector<char> allConcrete_;
  /// Per thread: every tryfail so far re-failed (precise branches).
  std::vector<char> tryfailsRefail_;
  std::unordered_map<SymId, std::vector<Hold>> holds_;
  std::unordered_map<SymId, int64_t> semCount_;              ///< touched sems
  std::unordered_map<SymId, std::optional<int64_t>> memory_; ///< written
  std::unordered_map<uint32_t, uint32_t> arrivals_;          ///< per generation
};

} // namespace racepredict::analysis
