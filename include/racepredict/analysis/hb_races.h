//===- analysis/hb_races.h - A plain happens-before race detector ---------===//
//
// What a vector-clock detector in the style of TSan / FastTrack reports on
// the same trace: conflicting pairs not ordered by happens-before, where
// happens-before is program order, fork/join, each release (or wait's
// release) to the next acquire of that lock in the observed order, notify to
// the wait it woke, barrier generations, each semaphore post to later waits,
// and atomic writes to later atomic reads of that location. Used by
// `analyze --hb` for side-by-side counts with the maximal predictor: HB only
// sees the observed order of critical sections, so it misses races that
// need them reordered, and it ignores values, so beyond a first race it may
// report pairs no feasible reordering makes adjacent.
//
#pragma once

#include "racepredict/analysis/trace_index.h"

#include <utility>
#include <vector>

namespace racepredict::analysis {

/// HB-racing conflicting pairs (first < second), in ascending order.
std::vector<std::pair<EventId, EventId>> hbRaces(const TraceIndex &idx);

} // namespace racepredict::analysis
