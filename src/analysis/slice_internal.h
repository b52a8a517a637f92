//===- analysis/slice_internal.h - Helpers of the slicer (private) --------===//
#pragma once

#include "racepredict/analysis/trace_index.h"

#include <algorithm>
#include <utility>

namespace racepredict::analysis {

/// The writes of `ws` (sorted by thread, then index) by thread u.
inline std::pair<const EventId *, const EventId *>
threadRun(const TraceIndex &idx, EventSpan ws, ThreadId u) {
  const auto &events = idx.trace().events;
  auto lo =
      std::lower_bound(ws.begin(), ws.end(), u, [&](EventId w, ThreadId v) {
        return events[w].thread < v;
      });
  auto hi = std::upper_bound(lo, ws.end(), u, [&](ThreadId v, EventId w) {
    return v < events[w].thread;
  });
  return {lo, hi};
}

} // namespace racepredict::analysis
