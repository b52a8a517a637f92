//===- analysis/pair_slice.h - The events a race query needs (issue 7) ----===//
//
// A slice is what the formula of one candidate pair (a, b) contains: a
// prefix of every thread (so that "absent" can mean "after the cut"), closed
// under the must-happen-before edges of docs/semantics.md, plus helpers:
// writes that can feed the reads that matter (a branch or a feeding write
// depends on them), semaphore posts, holders of a failed trylock's lock, and
// the releases of sections left open where another thread's section of the
// lock follows. Helpers observed before the event that needs them are taken
// up front ("eager"); the others stay outside behind escape literals that
// the solver loop expands on demand. docs/slicing.md argues why the sliced
// formula decides exactly what the whole-trace formula decides.
//
// A deadlock query (issue 6) slices the same way around its blocked
// threads: each member's thread ends just before its blocking event (after
// the first half of a wait or barrier), every other thread is capped where
// events that must follow a blocking event begin, and the closure is the
// same (Slicer::sliceBlocked).
//
// Units: the event at position p of a thread has unit 2p (the release half
// of a wait / arrival half of a barrier; nothing for other events) and unit
// 2p+1 (the event). A slice holds units [frozen, upto) of each thread; units
// below `frozen` (window mode only) are executed in observed order before
// everything else.
//
#pragma once

#include "racepredict/analysis/mhb.h"
#include "racepredict/analysis/trace_index.h"

#include <unordered_set>
#include <vector>

namespace racepredict::analysis {

inline uint32_t halfUnit(uint32_t pos) { return 2 * pos; }
inline uint32_t eventUnit(uint32_t pos) { return 2 * pos + 1; }

struct SliceOptions {
  /// Take helpers observed before the event that needs them into the slice
  /// up front. Off: only the must-happen-before past, everything else
  /// behind escapes (tests use it to exercise the expansion loop).
  bool eager = true;
  /// Window mode (`--window`): events before `windowBegin` are frozen (run
  /// as observed before the window), events at or after `windowEnd` can
  /// never be in a witness. Default: the whole trace.
  EventId windowBegin = 0;
  EventId windowEnd = kNone;
};

/// A thread of a deadlock query that stops before `event` (it never
/// completes it), or, `unforked`, was never created at all.
struct BlockedAt {
  EventId event = kNone;
  bool unforked = false;
};

class PairSlice {
public:
  /// The racing pair; kNone in a deadlock slice.
  EventId a = kNone, b = kNone;
  /// A deadlock slice's blocked threads (empty in a race slice).
  std::vector<BlockedAt> blocked;
  /// Per thread: the units a target (a, b or a blocked event) leaves its
  /// thread, or kNone if no target is in the thread.
  std::vector<uint32_t> endUnit;
  /// Per thread: units [frozen[t], upto[t]) are in the slice.
  std::vector<uint32_t> frozen, upto;
  /// Per thread: the first position that can never be in a witness (must
  /// happen after a or b, or at/after a window's end); size() = none.
  std::vector<uint32_t> limitPos;
  /// Per thread: read-likes and tryfails at positions below this matter
  /// (a plain branch or a feeding write after them depends on them all).
  std::vector<uint32_t> readMatter;
  /// Per thread: tryfails at positions below this matter (every branch
  /// depends on the earlier tryfails of its thread).
  std::vector<uint32_t> tryfailMatter;
  /// Reads that matter through a precise branch dependence only.
  std::unordered_set<EventId> preciseMatter;
  /// (location, value) pairs some read that matters observed: a write of
  /// one in the slice can feed it, so its own earlier reads matter.
  struct KeyHash {
    size_t operator()(const std::pair<SymId, int64_t> &k) const {
      return static_cast<size_t>(static_cast<uint64_t>(k.second) *
                                 0x9e3779b97f4a7c15ull) ^
             k.first;
    }
  };
  std::unordered_set<std::pair<SymId, int64_t>, KeyHash> wanted;

  bool hasEvent(const TraceIndex &idx, EventId e) const;
  bool hasHalf(const TraceIndex &idx, EventId e) const;
  bool frozenEvent(const TraceIndex &idx, EventId e) const;
  /// Events of thread t in the slice or frozen: positions < eventsIn(t).
  uint32_t eventsIn(ThreadId t) const { return upto[t] / 2; }
  bool matters(const TraceIndex &idx, EventId r) const;
  /// Units of thread t that may be in a witness: [0, cap). a and b end
  /// their threads, so does a blocked event (before it); elsewhere the first
  /// half of the first event that must follow a or b may still run (its must
  /// edge enters the second half).
  uint32_t cap(const TraceIndex &idx, ThreadId t) const;
  /// Free units in the slice (its size).
  size_t units() const;
};

class Slicer {
public:
  Slicer(const TraceIndex &idx, const MustHappenBefore &mhb,
         SliceOptions opts = {});
  const SliceOptions &options() const { return opts_; }

  /// The slice of the pair (a, b), a and b included (their threads end at
  /// them). Returns false if a or b must happen before the other (no race).
  bool slice(EventId a, EventId b, PairSlice *out) const;
  /// The slice of a deadlock query: every blocked thread runs up to (not
  /// including) its blocking event, its first half done for a wait or
  /// barrier; a never-created one runs nothing. `alsoNeed`: events the
  /// query needs in the slice if they may be in a witness (forks that must
  /// have run, the last events of threads that must have finished).
  /// Returns false if no cut puts every blocked thread there (one's prefix
  /// must follow another's blocking event).
  bool sliceBlocked(const std::vector<BlockedAt> &blocked,
                    const std::vector<EventId> &alsoNeed, PairSlice *out) const;
  /// Adds the events (their units) and closes the slice again.
  void extend(PairSlice &s, const std::vector<EventId> &events) const;

  /// Helpers outside the slice that an escape stands for; empty = none
  /// exists (the escape is not needed). At most one per thread: the
  /// earliest, whose inclusion takes all earlier ones of its thread.
  std::vector<EventId> outsideFeeders(const PairSlice &s, EventId read) const;
  std::vector<EventId> outsidePosts(const PairSlice &s, EventId semwait) const;
  std::vector<EventId> outsideHolders(const PairSlice &s,
                                      EventId tryfail) const;
  /// The release closing section `sec` if it is outside the slice and can
  /// be in a witness (kNone otherwise); a wait's stands for its half.
  EventId outsideRelease(const PairSlice &s, uint32_t sec) const;

  const TraceIndex &index() const { return idx_; }
  const MustHappenBefore &mhb() const { return mhb_; }

private:
  friend class SliceBuilder;
  /// Window and must-follow limits of every thread for targets whose
  /// `endUnit` is set, then the closure from the targets' prefixes and
  /// `alsoNeed`. False if a target's must-past was capped.
  bool build(PairSlice &s, const std::vector<EventId> &targets,
             const std::vector<EventId> &alsoNeed) const;
  const TraceIndex &idx_;
  const MustHappenBefore &mhb_;
  SliceOptions opts_;
};

} // namespace racepredict::analysis
