//===- analysis/mhb.h - Must-happen-before vector clocks ------------------===//
//
// The edges every feasible reordering keeps (docs/semantics.md, Φ_mhb):
// program order, fork → child's first event, child's last event → join,
// matched notify → wait return, barrier arrivals → departures, and
// value-forced edges: the only write of the value a branch's read observed
// → that branch. Semaphore post → wait is NOT a must edge (another post may
// serve the wait).
// If a →mhb b, then b can only run after a, so (a, b) can never race: the
// quick check that drops such pairs before the solver.
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

  /// clock(e)[t] = number of events of thread t that must precede or be e.
  const uint32_t *clock(EventId e) const { return &clocks_[e * nt_]; }
  /// The first event of thread `t` that `x` must happen before, or kNone.
  EventId firstSuccessorIn(ThreadId t, EventId x) const;

private:
  const TraceIndex &idx_;
  size_t nt_;
  std::vector<uint32_t> clocks_;
};

} // namespace racepredict::analysis
