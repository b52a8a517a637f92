//===- analysis/mhb_internal.h - Clock tables and passes of the MHB -------===//
//
// Private to mhb*.cpp. A thread's must-happen-before clock only changes at
// events with an incoming cross-thread edge, so clocks are stored at those
// change points only; an event's clock is the last change point at or
// before it, with its own entry = position + 1.
//
// The clocks are computed by passes over the trace in observed order
// (mhb_pass.cpp). With derived edges (mhb_derived.cpp) a rule may look at
// events the pass has not reached yet; it then sees the previous pass's
// clocks (the observed order before the first pass), and passes repeat
// until nothing changes: docs/slicing.md, "Derived order", says why the
// fixpoint is sound.
//
#pragma once

#include "clock_store.h"
#include "racepredict/analysis/mhb.h"

#include <algorithm>
#include <vector>

namespace racepredict::analysis {

using Clock = ClockStore::Ref;
using ClockEntries = ClockStore::Entries;

struct ClockTable {
  size_t nt = 0;
  /// The stored clocks hold no entry of their own thread (it is the
  /// event's position + 1).
  ClockStore store;
  /// Per thread: positions of its change points, ascending, and the clock
  /// at each.
  std::vector<std::vector<uint32_t>> pos;
  std::vector<std::vector<Clock>> clocks;

  explicit ClockTable(size_t threads = 0)
      : nt(threads), store(threads), pos(threads), clocks(threads) {}

  /// Index of the last change point of thread t at or before position p,
  /// or kNone.
  uint32_t changeAt(ThreadId t, uint32_t p) const {
    const auto &ps = pos[t];
    // Most queries are before the first or after the last (most threads
    // have one or two change points).
    if (ps.empty() || p < ps.front())
      return kNone;
    if (p >= ps.back())
      return static_cast<uint32_t>(ps.size()) - 1;
    return static_cast<uint32_t>(std::upper_bound(ps.begin(), ps.end(), p) -
                                 ps.begin()) -
           1;
  }
  /// The stored clock of the event at position p of thread t.
  Clock at(ThreadId t, uint32_t p) const {
    uint32_t k = changeAt(t, p);
    return k == kNone ? 0 : clocks[t][k];
  }
  /// Entry u of the clock of the event at position p of thread t.
  uint32_t entry(ThreadId t, uint32_t p, ThreadId u) const {
    return u == t ? p + 1 : store.get(at(t, p), u);
  }
  void append(ThreadId t, uint32_t p, Clock c) {
    pos[t].push_back(p);
    clocks[t].push_back(c);
  }
  /// Σ over events of their clock entries of other threads: passes only
  /// ever lower clocks, so equal sums mean equal tables.
  unsigned __int128 mass(const TraceIndex &idx) const;
  size_t changePoints() const;
};

/// A counter (mhb_counters.cpp): a location each write of which adds −1, 0
/// or +1 to the value its thread read of it just before, in the same
/// critical section of one lock all such writes hold (or is an atomic
/// read-modify-write), except perhaps one first write that sets it (the
/// root). Its value at any read is then its start plus the writes before.
struct Counter {
  EventId root = kNone; ///< the setting write, or none
  int64_t start = 0;    ///< the root's value, else the initial value
  /// The adding writes by (thread, index).
  std::vector<EventId> incs, decs;
};

/// Static facts the derived rules look up (built once for all passes).
struct DerivedFacts {
  explicit DerivedFacts(const TraceIndex &idx);
  void findCounters(const TraceIndex &idx);
  /// Per location: its index in `counters`, or kNone.
  std::vector<uint32_t> counterOf;
  std::vector<Counter> counters;
  /// Per lock: the threads that take it, if more than one (else empty).
  std::vector<std::vector<ThreadId>> lockThreads;
  size_t fewLockThreads = 16; ///< MhbOptions::fewLockThreads
  /// Per semaphore: its waits and its token sources (posts, inits), each
  /// ordered by (thread, index).
  std::vector<std::vector<EventId>> semWaits, semSources;
  /// Some rule has something to look at: a lock two threads take, a
  /// semaphore wait, or a branch after a read-like event of its thread
  /// (reads-from meets, counters). Without, every derived pass would
  /// reproduce the explicit clocks (at their cost: 20,000 threads).
  bool anyRule = false;
};

/// Token sources (posts, counted writes) one rule looks at, at most: beyond,
/// the rule gives up for that event (sound: rules only add edges).
constexpr size_t kMaxSources = 4096;

/// One pass over the trace: explicit edges, and the derived ones if
/// `facts` is given. `prev` is the previous pass's table, or null before
/// the first pass (the observed order then stands in for it).
class MhbPass {
public:
  MhbPass(const TraceIndex &idx, const ClockTable *prev,
          const DerivedFacts *facts);
  ClockTable run();

  // For the derived rules (mhb_derived.cpp).
  const TraceIndex &index() const { return idx_; }
  /// Entry u of the clock of event x: this pass's if x is already
  /// reached, else the previous pass's (or the observed order).
  uint32_t entryOf(EventId x, ThreadId u) const;
  /// The non-zero entries of that clock, its own included.
  void entriesOf(EventId x, ClockEntries &out) const;
  /// The stored clock of an event this pass has reached (x < the event
  /// being processed); its own entry is not in it.
  Clock reached(EventId x) const {
    return table_.at(idx_.trace().events[x].thread, idx_.posInThread(x));
  }
  uint32_t get(Clock c, ThreadId u) const { return table_.store.get(c, u); }
  ThreadId firstDifference(Clock a, Clock b, ThreadId from) const {
    return table_.store.firstDifference(a, b, from);
  }
  /// Joins the clock of x into c (a clock of thread self); true if any
  /// entry grew.
  bool join(Clock &c, ThreadId self, EventId x);
  /// Joins listed entries (those of threads other than self).
  bool joinEntries(Clock &c, ThreadId self, const ClockEntries &from);

private:
  void explicitEdges(EventId e, Clock &c);
  /// Lowers c to the previous pass's clock of e (never above it).
  void clip(EventId e, Clock &c);
  /// Entry u of the observed order's clock of x: u's events before it.
  uint32_t observed(EventId x, ThreadId u) const;

  const TraceIndex &idx_;
  const ClockTable *prev_;
  const DerivedFacts *facts_;
  size_t nt_;
  EventId at_ = 0; ///< the event being processed
  ClockTable table_;
  ClockEntries scratch_, lower_;
  bool changed_ = false;
};

/// The derived rules over one pass (mhb_derived.cpp).
class DerivedRules {
public:
  DerivedRules(MhbPass &pass, const DerivedFacts &facts);
  /// Joins into c (the clock of e, explicit edges done) what the derived
  /// rules say e needs; `changed`: c grew at e so far. Returns whether c
  /// grew here.
  bool apply(EventId e, Clock &c, bool changed);

private:
  /// Sections e closes leave the open set, the one it opens joins it;
  /// true if e opened one.
  bool updateOpen(EventId e);
  bool readsFeeding(EventId branch, Clock &c);
  bool meetOfWriters(EventId r, ClockEntries &meet);
  bool exclusion(EventId e, Clock &c);
  /// The release of thread t's section that an event inside b, whose clock
  /// has `known` as t's entry, must follow (and does not yet), or kNone.
  EventId releaseToFollow(const LockSection &b, ThreadId t,
                          uint32_t known) const;
  bool tokens(EventId wait, Clock &c);
  bool counted(EventId r, Clock &c);
  void checkRoots();
  /// Of `events` (by thread, index): how many must precede the event at
  /// position `pos` of thread `self` whose clock is `clock`.
  int64_t mustPrecede(const std::vector<EventId> &events, ThreadId self,
                      uint32_t pos, Clock clock) const;
  /// Those that may precede it (not after it in program order, not known
  /// to follow it), into `out`; false if more than kMaxSources.
  bool mayPrecede(const std::vector<EventId> &events, ThreadId self,
                  uint32_t pos, std::vector<EventId> &out) const;
  /// Joins into c (of thread self), per other thread, the k-th smallest
  /// entry (with multiplicity `weight`) of the sources' clocks: any k
  /// tokens among them include one that late.
  bool joinKthSmallest(const std::vector<EventId> &sources,
                       const std::vector<int64_t> &weight, int64_t k,
                       ThreadId self, Clock &c);

  MhbPass &pass_;
  const TraceIndex &idx_;
  const DerivedFacts &facts_;
  size_t nt_;
  /// Per thread: reads since its last plain branch, and recent reads
  /// already joined at a branch (later events inherit them).
  std::vector<std::vector<EventId>> pending_;
  std::vector<std::vector<EventId>> recentDone_;
  /// Per thread: sections of shared locks it holds.
  std::vector<std::vector<uint32_t>> open_;
  std::vector<uint32_t> lastPlain_; ///< per thread: position of it, or 0
  /// Per counter: its root precedes every other access (by the previous
  /// pass's clocks), so the counted writes all follow it.
  std::vector<char> rootHolds_;
  ClockEntries entries_, meet_;
  /// Per (lock, read mode): the last clock that exclusion left with
  /// nothing to join for a section of that lock and mode.
  std::vector<Clock> closed_;
};

} // namespace racepredict::analysis
