//===- tools/racepredict/check_violation.h - Re-validate a violation ------===//
#pragma once

#include "racepredict/analysis/trace_index.h"
#include "racepredict/property/property.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace racepredict::tool {

/// Checks one violation entry of a report or one violation witness file:
/// the schedule ("steps", or "witness" with its halves placed) is a
/// feasible prefix schedule that ends with the last of "events" and holds
/// all of them in order; when the property named by "property" is among
/// `props`, also that its pattern "pattern_index" occurs in the schedule
/// with these events. Returns an error sentence, or "" if valid.
/// Throws nlohmann::json::exception on a malformed entry.
std::string checkViolation(const analysis::TraceIndex &idx,
                           const nlohmann::json &v,
                           const std::vector<property::Property> &props);

} // namespace racepredict::tool
