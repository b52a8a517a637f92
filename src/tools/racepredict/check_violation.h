//===- tools/racepredict/check_violation.h - A violation's pattern --------===//
#pragma once

#include "racepredict/analysis/trace_index.h"
#include "racepredict/property/property.h"
#include "racepredict/report/witness_reader.h"

#include <optional>
#include <string>
#include <vector>

namespace racepredict::tool {

/// The part of a violation witness only its property can check (the
/// schedule itself is report::witnessSteps's): when the property it names
/// is among `props`, its pattern `pattern_index` occurs in the schedule with
/// the violation's events. An error sentence, or nullopt.
std::optional<std::string>
checkViolationPattern(const analysis::TraceIndex &idx,
                      const report::WitnessSpec &v,
                      const std::vector<property::Property> &props);

} // namespace racepredict::tool
