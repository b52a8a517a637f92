//===- property/pattern_check.h - Does a schedule exhibit a pattern? ------===//
//
// The independent half of witness validation for property violations: the
// schedule checker says the witness is a feasible prefix schedule, this says
// the pattern really occurs in it — computed from the definition on the
// concrete sequence, not from the candidate lists or the encoding.
//
#pragma once

#include "racepredict/property/matcher.h"

#include <optional>
#include <string>
#include <vector>

namespace racepredict::property {

/// nullopt if `schedule` (events in execution order) ends with `events[k-1]`
/// and exhibits `pattern` with `events` as its steps: they occur in order,
/// match their steps under one binding (built by matching them in order),
/// and no event of the schedule strictly between events[i-1] and events[i]
/// (between the start and events[0] for i = 0) matches gaps[i]. Otherwise
/// one sentence saying what fails.
std::optional<std::string>
checkPatternOnSchedule(const TraceMatcher &m, const Pattern &pattern,
                       const std::vector<EventId> &events,
                       const std::vector<EventId> &schedule);

} // namespace racepredict::property
