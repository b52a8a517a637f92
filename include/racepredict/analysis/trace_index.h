//===- analysis/trace_index.h - Per-thread, per-lock, per-location indexes
//-===//
//
// Derived structure of a trace that both the SMT encoding and the schedule
// checker need, computed once: program order, lock sections, barrier
// generations, initial values (the first-read rule of DESIGN.md) and
// semaphore initial counts. See docs/semantics.md.
//
#pragma once

#include "racepredict/trace/trace.h"

#include <optional>
#include <unordered_map>
#include <vector>

namespace racepredict::analysis {

using trace::EventId;
using trace::kNone;
using trace::SymId;
using trace::ThreadId;

/// A critical section: from an acquire (acq, racq, or the return half of a
/// wait) to the matching release (rel, or the release half of a wait).
struct LockSection {
  SymId lock;
  ThreadId thread;
  EventId acquire;
  EventId release; ///< kNone: never released (held to the end of the trace)
  bool readMode;
  bool releasedByWait; ///< `release` is a wait: its release half closes it
};

class TraceIndex {
public:
  explicit TraceIndex(const trace::Trace &t);

  const trace::Trace &trace() const { return t_; }
  size_t numThreads() const { return threadEvents_.size(); }
  /// Events of thread `t` in program order.
  const std::vector<EventId> &threadEvents(ThreadId t) const {
    return threadEvents_[t];
  }
  /// Position of `e` in its thread's event list.
  uint32_t posInThread(EventId e) const { return pos_[e]; }
  EventId poPrev(EventId e) const;
  EventId poNext(EventId e) const;

  /// The `fork u` event, or kNone.
  EventId forkOf(ThreadId u) const { return forkOf_[u]; }

  /// All lock sections, grouped by lock (ascending lock id, then acquire).
  const std::vector<LockSection> &sections() const { return sections_; }
  /// Indices into sections() of the sections of `lock`.
  const std::vector<uint32_t> &sectionsOf(SymId lock) const;
  /// Sections (indices) that contain event `e` of their thread strictly
  /// between acquire and release (the lockset of `e`).
  std::vector<uint32_t> sectionsHolding(EventId e) const;

  /// Barrier generation of a barrier event and its members.
  uint32_t barrierGeneration(EventId e) const { return barrierGen_.at(e); }
  const std::vector<std::vector<EventId>> &barrierGenerations() const {
    return barrierGens_;
  }

  /// Initial value of a location: its `init` line; else, if its first access
  /// reads (rd, ard, armw), the value it observed; else unknown (nullopt).
  std::optional<int64_t> initialValue(SymId loc) const;
  /// Initial count of a semaphore without `seminit`: the smallest count that
  /// makes the observed trace valid (0 when it has a seminit).
  int64_t semInitialCount(SymId sem) const;

  /// Writes (wr, awr, armw) and all accesses per location, in trace order.
  const std::vector<EventId> &writesTo(SymId loc) const;
  const std::vector<EventId> &accessesTo(SymId loc) const;

  /// Allocation generation of an access: how many `alloc` of its location
  /// precede it in the trace (accesses of different generations are to
  /// different memory and never conflict).
  uint32_t allocGeneration(EventId e) const;

private:
  const trace::Trace &t_;
  std::vector<std::vector<EventId>> threadEvents_;
  std::vector<uint32_t> pos_;
  std::vector<EventId> forkOf_;
  std::vector<LockSection> sections_;
  std::unordered_map<SymId, std::vector<uint32_t>> sectionsByLock_;
  std::unordered_map<EventId, uint32_t> barrierGen_;
  std::vector<std::vector<EventId>> barrierGens_;
  std::unordered_map<SymId, std::optional<int64_t>> initial_;
  std::unordered_map<SymId, int64_t> semInitial_;
  std::unordered_map<SymId, std::vector<EventId>> writes_;
  std::unordered_map<SymId, std::vector<EventId>> accesses_;
  std::unordered_map<EventId, uint32_t> allocGen_;
  std::vector<std::vector<uint32_t>> sectionsByThread_;
};

} // namespace racepredict::analysis
