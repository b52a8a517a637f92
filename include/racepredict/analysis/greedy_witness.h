//===- analysis/greedy_witness.h - Value-keeping greedy race schedules ----===//
//
// A polynomial attempt at a candidate before its formula is built (issue
// 17, `mixed`): execute the trace on the model state, one enabled step at a
// time, never letting a read that matters see anything but its recorded
// value (those reads stay concrete, so every branch stays enabled; a read
// that does not matter, PairSlice::matters, may see any), until the threads of
// a and b stand at a and b. Among the enabled steps it takes the one
// earliest in the observed order, or first the steps of a's and b's
// threads; a thread never passes its slice cap (what must follow a or b).
// Unlike the closure witness it does not keep reads-from: a read may take
// any write of its value that is last when it runs. The schedule checker
// must accept the result; when no order works the solver decides, so the
// verdicts are those of the solver alone (a failure here proves nothing).
//
// A run that gets stuck at a read whose value was in its location earlier
// in σ learns to hold back the other threads' writes that replaced it until
// that read has run, and the same order runs again (a bounded backtracking,
// greedy_witness.cpp).
//
#pragma once

#include "racepredict/analysis/pair_slice.h"
#include "racepredict/analysis/schedule_checker.h"

#include <optional>
#include <vector>

namespace racepredict::analysis {

/// σ·a·b, accepted by checkRaceWitness, or nullopt. `slice` gives the caps.
/// `repaired` (if given): whether the schedule came from a run after a
/// repair.
std::optional<std::vector<Step>> findGreedyWitness(const TraceIndex &idx,
                                                   const PairSlice &slice,
                                                   EventId a, EventId b,
                                                   bool *repaired = nullptr);

} // namespace racepredict::analysis
