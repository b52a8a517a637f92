//===- report/race_groups.h - One race per pair of source locations -------===//
//
// TSan reports a race once per pair of program locations, however many
// threads and iterations hit it. The predictor decides its candidates per
// pair of *recorded* source ids, and those split one source line where code
// was inlined into several callers (another inlinedAt) or a template was
// instantiated twice: the same two lines then came back once per caller or
// per thread. The report keeps one race per unordered pair of
// (file, line, column, function) and says how many conflicting event pairs
// and which threads it stands for.
//
#pragma once

#include "racepredict/solver/race_predictor.h"
#include "racepredict/trace/trace.h"

#include <string>
#include <vector>

namespace racepredict::report {

/// Keeps the first race (in (first, second) order) of every pair of source
/// locations; races without a location of their own stay apart.
void oneRacePerLocationPair(const trace::Trace &t, solver::RaceResult &r);

/// What one reported race stands for in the trace: the conflicting event
/// pairs (different threads, one writes, not both atomic, same location)
/// between the two source locations, and the threads that take part.
struct RaceExtent {
  size_t pairs = 0;
  std::vector<trace::ThreadId> threads;
};
RaceExtent raceExtent(const trace::Trace &t, trace::EventId first,
                      trace::EventId second);

/// "12 conflicting event pairs of threads t1, t2, t3 at these two lines".
std::string extentText(const trace::Trace &t, const RaceExtent &x);

} // namespace racepredict::report
