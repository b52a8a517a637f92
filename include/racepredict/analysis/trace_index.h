//===- analysis/trace_index.h - Per-thread, per-lock, per-location indexes ===//
//
// Derived structure of a trace that both the SMT encodings and the schedule
// checker need, computed once: program order, lock sections, barrier
// generations, initial values (the first-read rule of DESIGN.md) and
// semaphore initial counts. See docs/semantics.md.
//
// Memory (issue 7): every per-location, per-lock and per-semaphore index is
// a compressed array (offsets + items, CSR) over dense symbol ids, with no
// per-event heap object: about 20 bytes per event on top of the 32-byte
// events, so a 10M-event trace indexes in a few hundred MB.
//
#pragma once

#include "racepredict/trace/trace.h"

#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

namespace racepredict::analysis {

using trace::EventId;
using trace::kNone;
using trace::SymId;
using trace::ThreadId;

/// A read-only view of a contiguous run of an index array.
template <typename T> class Span {
public:
  Span() = default;
  Span(const T *b, const T *e) : b_(b), e_(e) {}
  const T *begin() const { return b_; }
  const T *end() const { return e_; }
  size_t size() const { return static_cast<size_t>(e_ - b_); }
  bool empty() const { return b_ == e_; }
  const T &operator[](size_t i) const { return b_[i]; }
  const T &front() const { return *b_; }
  const T &back() const { return e_[-1]; }
  std::vector<T> vec() const { return std::vector<T>(b_, e_); }

private:
  const T *b_ = nullptr;
  const T *e_ = nullptr;
};
using EventSpan = Span<EventId>;

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

/// Offsets + items: the list of key k is items[off[k] .. off[k+1]).
struct Csr {
  std::vector<uint32_t> off{0};
  std::vector<uint32_t> items;
  Span<uint32_t> of(size_t k) const {
    if (k + 1 >= off.size())
      return {};
    return {items.data() + off[k], items.data() + off[k + 1]};
  }
};

class ChannelOrder;
class MemoryObjects;

class TraceIndex {
public:
  explicit TraceIndex(const trace::Trace &t);
  ~TraceIndex();

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
  /// Indices into sections() of the sections of `lock`, by acquire.
  Span<uint32_t> sectionsOf(SymId lock) const { return byLock_.of(lock); }
  /// The sections of `lock` taken by thread `t`, by acquire.
  Span<uint32_t> sectionsOf(SymId lock, ThreadId t) const;
  /// Sections (indices) of thread `t`, by acquire.
  Span<uint32_t> sectionsOfThread(ThreadId t) const { return byThread_.of(t); }
  /// Sections (indices) that contain event `e` of their thread strictly
  /// between acquire and release (the lockset of `e`).
  std::vector<uint32_t> sectionsHolding(EventId e) const;
  /// Sections of thread `t` open after its first `n` events: acquired among
  /// them and released (if at all) at or after position n (innermost first).
  std::vector<uint32_t> sectionsOpenAfter(ThreadId t, uint32_t n) const;
  /// The section whose acquire is `e` (an acq, racq or wait), or kNone.
  uint32_t sectionAcquiredAt(EventId e) const;

  /// Barrier generation of a barrier event and its members.
  uint32_t barrierGeneration(EventId e) const { return barrierGen_.at(e); }
  const std::vector<std::vector<EventId>> &barrierGenerations() const {
    return barrierGens_;
  }
  /// The waits recorded as woken by notify `n` (ascending).
  EventSpan wokenBy(EventId n) const;

  /// Initial value of a location: its `init` line; else, if its first access
  /// reads (rd, ard, armw), the value it observed; else unknown (nullopt).
  std::optional<int64_t> initialValue(SymId loc) const;
  /// Initial count of a semaphore without `seminit`: the smallest count that
  /// makes the observed trace valid (0 when it has a seminit).
  int64_t semInitialCount(SymId sem) const;
  /// seminit, post and semwait events of a semaphore, in trace order.
  EventSpan semEvents(SymId sem) const { return bySem_.of(sem); }

  /// Writes (wr, awr, armw) and all accesses per location, in trace order.
  EventSpan writesTo(SymId loc) const { return writes_.of(loc); }
  EventSpan accessesTo(SymId loc) const { return accesses_.of(loc); }
  /// The writes of `loc` that stored `value`, ordered by (thread, index).
  EventSpan writesOfValue(SymId loc, int64_t value) const;
  /// The writes of `loc` by thread `t`, in program order.
  EventSpan writesOf(SymId loc, ThreadId t) const;
  /// All writes of `loc`, ordered by (thread, index).
  EventSpan writesByThread(SymId loc) const;
  /// The value a read-like event observed (the read half of an rmw).
  int64_t readValue(EventId r) const;
  /// Whether write `w` is the only write of its location storing its value.
  bool uniqueValue(EventId w) const { return uniqueValue_[w]; }

  /// Allocation generation of an access: how many allocations covering its
  /// location precede it in the trace (accesses of different generations
  /// are to different memory and never conflict; memory_objects.h).
  uint32_t allocGeneration(EventId e) const;
  /// Which allocation each access belongs to and what each free ends.
  const MemoryObjects &objects() const { return *objects_; }
  /// The events of other threads a send or receive must follow (its
  /// channel's must-happen-before edges, channel_order.h).
  EventSpan channelPredecessors(EventId e) const;

private:
  const trace::Trace &t_;
  std::vector<std::vector<EventId>> threadEvents_;
  std::vector<uint32_t> pos_;
  std::vector<EventId> forkOf_;
  std::vector<LockSection> sections_;
  Csr byLock_, byThread_, bySem_, writes_, accesses_;
  std::unique_ptr<MemoryObjects> objects_;
  std::unique_ptr<ChannelOrder> channels_;
  /// Per lock: section indices by (thread, acquire), offsets as byLock_.
  std::vector<uint32_t> byLockThread_;
  /// Per thread section (same order as byThread_): the latest section of
  /// the thread still open when it was acquired, or kNone. Walking this
  /// chain finds every open section in time proportional to the nesting.
  std::vector<uint32_t> prevOpen_;
  /// Per location: its writes by (value, thread, index) and by (thread,
  /// index), offsets as writes_.
  std::vector<uint32_t> writesByValue_, writesByThread_;
  std::vector<bool> uniqueValue_; ///< per event (writes only)
  std::unordered_map<EventId, uint32_t> barrierGen_;
  std::vector<std::vector<EventId>> barrierGens_;
  /// (notify, wait) pairs sorted by notify, as two parallel arrays.
  std::vector<EventId> wokenNotify_, wokenWaits_;
  std::vector<std::optional<int64_t>> initial_; ///< per location
  std::vector<int64_t> semInitial_;             ///< per semaphore
};

} // namespace racepredict::analysis
