//===- report/sarif_report.cpp - SARIF 2.1.0 of one analysis --------------===//
//
// `analyze --format sarif`: the findings of one trace, written by the same
// writer as `batch --sarif` (finding_sarif.cpp), so both carry the same
// rules, code flows and signature fingerprints.
//
#include "racepredict/report/finding_sarif.h"
#include "racepredict/report/report.h"
#include "racepredict/report/signature.h"

namespace racepredict::report {

using json = nlohmann::ordered_json;

json sarifReport(const trace::Trace &t, const solver::RaceResult &races,
                 const solver::DeadlockResult *deadlocks,
                 const analysis::TraceIndex &idx, const ReportContext &ctx) {
  std::vector<Finding> findings = findingsOf(t, races, deadlocks, idx);
  std::vector<SarifFinding> sf;
  for (const auto &f : findings) {
    json events = json::array();
    for (const auto &s : f.sites)
      events.push_back(s.event);
    sf.push_back({&f, findingSignature(f, ""), {{"events", events}}});
  }
  SarifOptions opts;
  opts.version = ctx.version;
  opts.executionSuccessful =
      races.unknowns.empty() && (!deadlocks || deadlocks->unknowns.empty());
  size_t unknown =
      races.unknowns.size() + (deadlocks ? deadlocks->unknowns.size() : 0);
  if (unknown)
    opts.notifications.push_back(
        {"error", std::to_string(unknown) +
                      " solver queries ended unknown (time-out or budget): "
                      "the result is incomplete, not clean"});
  opts.runProperties = {{"trace", ctx.tracePath}};
  return sarifFromFindings(sf, opts);
}

} // namespace racepredict::report
