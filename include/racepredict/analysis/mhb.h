//===- analysis/mhb.h - Must-happen-before vector clocks ------------------===//
//
// The edges every feasible reordering keeps (docs/semantics.md, Φ_mhb):
// program order, fork → child's first event, child's last event → join,
// matched notify → wait return, barrier arrivals → departures. Semaphore
// post → wait is NOT a must edge (another post may serve the wait).
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

private:
  /// clock(e)[t] = number of events of thread t that must precede or be e.
  const uint32_t *clock(EventId e) const { return &clocks_[e * nt_]; }
  const TraceIndex &idx_;
  size_t nt_;
  std::vector<uint32_t> clocks_;
};

} // namespace racepredict::analysis
