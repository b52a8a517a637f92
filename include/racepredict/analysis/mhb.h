//===- analysis/mhb.h - Must-happen-before vector clocks ------------------===//
//
// The edges every feasible reordering keeps (docs/semantics.md, Φ_mhb):
// program order, fork → child's first event, child's last event → join,
// matched notify → wait return, the event before a woken wait → its notify
// (the notify only wakes a thread already waiting), barrier arrivals →
// departures, a channel's edges (channel_order.h). Semaphore post → wait is NOT
// an explicit edge (another post may serve the wait).
//
// Derived edges (issue 17, docs/slicing.md "Derived order"): what every
// schedule of the maximal causal model must also keep, because of values,
// locks and counts — a branch comes after some write that can feed each
// read it depends on (so after what all of them need), a section that
// must follow another section's acquire must follow its release, and a
// semaphore wait after as many posts as the waits before it need. The
// clocks are then a greatest fixpoint, computed by repeated passes.
//
// If a →mhb b, then b can only run after a, so (a, b) can never race: the
// quick check that drops such pairs before the solver, and the cap of
// every slice (what must follow a or b is never in a witness).
//
// Memory (issue 7): a thread's clock only changes at events with an
// incoming cross-thread edge, so clocks are stored at those change points
// only (per thread, by position); any event's clock is the last change
// point at or before it plus its own position. The stored clocks share
// the nodes of a trie over thread ids (issue 21 item 7, clock_store.h): a
// clock costs what its thread knows, not one entry per thread, and an
// entry is read in O(log(change points) + log(threads)).
//
#pragma once

#include "racepredict/analysis/trace_index.h"

#include <memory>
#include <vector>

namespace racepredict::analysis {

struct ClockTable;

struct MhbOptions {
  /// Add the derived edges (off: the explicit edges only, one pass).
  bool derived = true;
  /// Passes of the fixpoint before giving it up for the explicit edges
  /// alone (an unfinished fixpoint is not sound).
  unsigned maxPasses = 12;
  /// Lock exclusion looks at every thread that takes a lock of up to this
  /// many threads; beyond, only at threads whose entries changed since the
  /// rule last had nothing to add for that lock (the same edges, in the
  /// same order: tests compare the two ways).
  size_t fewLockThreads = 16;
};

struct MhbStats {
  unsigned passes = 0;
  /// The derived fixpoint was reached (false: explicit edges only).
  bool derived = false;
  size_t changePoints = 0;
  double seconds = 0;
};

class MustHappenBefore {
public:
  explicit MustHappenBefore(const TraceIndex &idx, MhbOptions opts = {});
  ~MustHappenBefore();
  /// True iff a must happen before b (a ≠ b).
  bool ordered(EventId a, EventId b) const;
  /// Either direction.
  bool orderedEitherWay(EventId a, EventId b) const {
    return ordered(a, b) || ordered(b, a);
  }

  /// The clock entry: how many events of thread `t` must precede or be `e`.
  uint32_t entry(EventId e, ThreadId t) const;
  /// The first event of thread `t` that `x` must happen before, or kNone.
  EventId firstSuccessorIn(ThreadId t, EventId x) const;
  /// The write a branch depending on read `r` forces before it (the only
  /// write of the value r observed, when the initial value differs), or
  /// kNone.
  static EventId forcedWriter(const TraceIndex &idx, EventId r);
  /// Stored clocks (change points), for the memory statistics.
  size_t storedClocks() const;
  const MhbStats &stats() const { return stats_; }

private:
  const TraceIndex &idx_;
  std::unique_ptr<ClockTable> table_;
  MhbStats stats_;
};

} // namespace racepredict::analysis
