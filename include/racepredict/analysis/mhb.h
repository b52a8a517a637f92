//===- analysis/mhb.h - Must-happen-before vector clocks ------------------===//
//
// The edges every feasible reordering keeps (docs/semantics.md, Φ_mhb):
// program order, fork → child's first event, child's last event → join,
// matched notify → wait return, the event before a woken wait → its notify
// (the notify only wakes a thread already waiting), barrier arrivals →
// departures, a channel's edges (channel_order.h), and value-forced edges: the only write of the value a
// branch's read observed → that branch. Semaphore post → wait is NOT a must
// edge (another post may serve the wait).
// If a →mhb b, then b can only run after a, so (a, b) can never race: the
// quick check that drops such pairs before the solver.
//
// Memory (issue 7): a thread's clock only changes at events with an
// incoming cross-thread edge, so clocks are stored at those change points
// only (per thread, by position); any event's clock is the last change
// point at or before it plus its own position. A trace with few such edges
// costs a few bytes per event instead of 4 bytes × threads.
//
#pragma once

#include "racepredict/analysis/trace_index.h"

#include <vector>

namespace racepredict::analysis {

class MustHappenBefore {
public:
  explicit MustHappenBefore(const TraceIndex &idx);
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
  size_t storedClocks() const { return changePos_.size(); }

private:
  /// Index into changePos_/clocks_ of the last change point of thread `t`
  /// at or before position `p`, or kNone.
  uint32_t changeAt(ThreadId t, uint32_t p) const;

  const TraceIndex &idx_;
  size_t nt_;
  /// Per thread: its change points are changePos_[first_[t] .. first_[t+1]).
  std::vector<uint32_t> first_;
  std::vector<uint32_t> changePos_;
  /// nt_ entries per change point (the own-thread entry is not used).
  std::vector<uint32_t> clocks_;
};

} // namespace racepredict::analysis
