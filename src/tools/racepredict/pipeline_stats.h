//===- tools/racepredict/pipeline_stats.h - Pipeline figures for JSON -----===//
#pragma once

#include "analysis_pipeline.h"

#include <nlohmann/json.hpp>

namespace racepredict::tool {

/// The report's `stats.stages` (seconds and peak MB of each stage) and
/// `stats.local_reduction` (when it applied), as members of an object:
/// `analyze` and `run` add them to their reports' "stats".
nlohmann::ordered_json pipelineStatsJson(const AnalysisResult &res);

} // namespace racepredict::tool
