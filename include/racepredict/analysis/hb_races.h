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
// One pass in trace order with one clock per thread and per sync object
// (issue 7): racing pairs are counted, not enumerated (a racy counter has
// quadratically many), and each signature group (pair of source locations)
// is found from the latest access per signature.
//
#pragma once

#include "racepredict/analysis/trace_index.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace racepredict::analysis {

struct HbSummary {
  /// HB-racing conflicting event pairs (counted).
  uint64_t pairs = 0;
  /// One pair per signature group with an HB race: the group's first racing
  /// access with the latest earlier access of the other signature that it
  /// races with; sorted.
  std::vector<std::pair<EventId, EventId>> groups;
};

HbSummary hbSummary(const TraceIndex &idx);

/// Every HB-racing conflicting pair (first < second), in ascending order
/// (output-sensitive: as many as there are).
std::vector<std::pair<EventId, EventId>> hbRaces(const TraceIndex &idx);

} // namespace racepredict::analysis
