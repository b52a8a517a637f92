//===- test/support/hb_reference.h - The quadratic HB detector ------------===//
#pragma once

#include "racepredict/analysis/candidates.h"
#include "racepredict/analysis/trace_index.h"

#include <utility>
#include <vector>

namespace racepredict::testsupport {

/// Every HB-racing conflicting pair, by the issue-3 algorithm.
std::vector<std::pair<analysis::EventId, analysis::EventId>>
hbRacesReference(const analysis::TraceIndex &idx);

} // namespace racepredict::testsupport
