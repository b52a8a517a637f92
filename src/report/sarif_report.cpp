//===- report/sarif_report.cpp - SARIF 2.1.0 of one analysis --------------===//
//
// `analyze`/`run --format sarif`: the findings of one trace, written by the
// same writer as `batch --sarif` (finding_sarif.cpp), so both carry the same
// rules, code flows and signature fingerprints. sarifReport builds the log
// as one document; writeSarifReport prints the same text one result at a
// time (sarif_report.h).
//
#include "racepredict/report/sarif_report.h"

#include "racepredict/report/finding_sarif.h"
#include "racepredict/report/json_writer.h"
#include "racepredict/report/signature.h"

#include <ostream>

namespace racepredict::report {

using json = nlohmann::ordered_json;

namespace {

SarifOptions optionsOf(const solver::RaceResult &races,
                       const solver::DeadlockResult *deadlocks,
                       const ReportContext &ctx) {
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
  return opts;
}

/// A finding of one trace with its result properties: the events of its
/// sites.
SarifFinding sarifFindingOf(const Finding &f) {
  json events = json::array();
  for (const auto &s : f.sites)
    events.push_back(s.event);
  return {&f, findingSignature(f, ""), {{"events", events}}};
}

} // namespace

json sarifReport(const trace::Trace &t, const solver::RaceResult &races,
                 const solver::DeadlockResult *deadlocks,
                 const analysis::TraceIndex &idx, const ReportContext &ctx) {
  std::vector<Finding> findings = findingsOf(t, races, deadlocks, idx);
  std::vector<SarifFinding> sf;
  for (const auto &f : findings)
    sf.push_back(sarifFindingOf(f));
  return sarifFromFindings(sf, optionsOf(races, deadlocks, ctx));
}

void writeSarifReport(std::ostream &out, const trace::Trace &t,
                      const solver::RaceResult &races,
                      const solver::DeadlockResult *deadlocks,
                      const solver::PropertyResult *violations,
                      const Properties *properties, const ReportContext &ctx) {
  SarifOptions opts = optionsOf(races, deadlocks, ctx);
  // The log without its results, completed as addViolationsToSarif would.
  json log = sarifLog(json::array(), opts);
  json &run = log["runs"][0];
  size_t violationRule = run["tool"]["driver"]["rules"].size();
  if (violations) {
    run["tool"]["driver"]["rules"].push_back(violationSarifRule());
    if (!violations->unknowns.empty())
      run["invocations"][0]["executionSuccessful"] = false;
  }
  // Results in findingsOf's order, then the violations; each finding is
  // resolved only while its result is written.
  auto results = [&](JsonWriter &w) {
    w.beginArray();
    forEachFinding(t, races, deadlocks, [&](Finding &&f) {
      w.value(sarifResult(sarifFindingOf(f), opts));
    });
    if (violations)
      for (const auto &v : violations->violations)
        w.value(violationSarifResult(t, v, *properties, violationRule));
    w.end();
  };
  {
    JsonWriter w(out);
    w.beginObject();
    for (auto m = log.begin(); m != log.end(); ++m) {
      w.key(m.key());
      if (m.key() != "runs") {
        w.value(m.value());
        continue;
      }
      w.beginArray();
      w.object(run, {{"results", results}});
      w.end();
    }
    w.end();
  }
  out << "\n";
}

} // namespace racepredict::report
