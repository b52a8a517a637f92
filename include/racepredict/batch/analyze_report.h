//===- batch/analyze_report.h - Findings from an analyze/run JSON report --===//
//
// `racepredict analyze --format json` (and `run`, which adds a `replay`
// field per finding) names events by index; with the trace loaded, each
// index resolves to thread, operation and source location (report::Finding).
//
#pragma once

#include "racepredict/report/finding.h"
#include "racepredict/trace/trace.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace racepredict::batch {

/// Races, deadlocks and property violations of a DESIGN.md JSON report on
/// trace `t`. A finding's `replay` value, when present, becomes its status,
/// and its `replay_detail` object (null when absent) goes to `*details`,
/// one entry per finding, when given. Errors name the array and index of a
/// malformed entry.
Expected<std::vector<report::Finding>>
findingsFromReport(const nlohmann::json &report, const trace::Trace &t,
                   std::vector<nlohmann::json> *details = nullptr);

} // namespace racepredict::batch
