//===- tools/racepredict/pipeline_stats.cpp - Pipeline figures for JSON ---===//
#include "pipeline_stats.h"

namespace racepredict::tool {

nlohmann::ordered_json pipelineStatsJson(const AnalysisResult &res) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const AnalysisResult::Stage &st : res.stages)
    j["stages"].push_back(
        {{"stage", st.name},
         {"seconds", st.seconds},
         {"peak_mb", static_cast<double>(st.peakBytes) / (1 << 20)}});
  if (const auto &rs = res.reduction; rs.events)
    j["local_reduction"] = {{"kept_events", rs.keptEvents},
                            {"local_locations", rs.localLocations},
                            {"dropped_accesses", rs.droppedAccesses},
                            {"dropped_branches", rs.droppedBranches},
                            {"kept_local_accesses", rs.keptLocalAccesses}};
  if (const auto &ss = res.streaming; ss.passes)
    j["streaming_load"] = {{"passes", ss.passes},
                           {"loads", ss.loads},
                           {"largest_load", ss.largestLoad},
                           {"shared_addresses", ss.sharedAddresses}};
  return j;
}

} // namespace racepredict::tool
