//===- report/run_report.h - Findings with their replay verdicts ----------===//
//
// What `racepredict run` prints: by default only the findings that replay
// confirmed, TSan-shaped ("WARNING: racepredict: data race (predicted,
// confirmed by replay)", both accesses with thread, size, address or
// variable and stack, the creating threads, then the witness as numbered
// steps with source lines), or the JSON report of DESIGN.md with a
// `replay` field per finding.
//
#pragma once

#include "racepredict/report/report.h"
#include "racepredict/solver/property_predictor.h"

#include <string>
#include <vector>

namespace racepredict::report {

/// The replay of one finding.
struct ReplayInfo {
  std::string verdict; ///< "confirmed", "diverged" or "not-reproduced"
  std::string message;
  std::string location; ///< where the run left the path (diverged)
  std::string variable; ///< the racing variable, from the replayed run
  uint32_t step = 0, steps = 0;
  std::string witnessFile; ///< kept witness file, "" if none
  /// The schedule replayed, one line per step (with source text); empty
  /// if none could be built (then the report lists the witness events).
  std::vector<std::string> schedule;
  /// The trace event of each step (parallel to `schedule`): where a
  /// diverged replay left the witness, with its stack.
  std::vector<trace::EventId> scheduleEvents;
  bool confirmed() const { return verdict == "confirmed"; }
};

struct RunReport {
  const trace::Trace *trace = nullptr;
  const analysis::TraceIndex *index = nullptr;
  const solver::RaceResult *races = nullptr;
  std::vector<ReplayInfo> raceReplays;               ///< one per races->races
  const solver::DeadlockResult *deadlocks = nullptr; ///< null: not asked
  std::vector<ReplayInfo> deadlockReplays;
  /// Property violations (null: no --property) and their properties.
  const solver::PropertyResult *violations = nullptr;
  const std::vector<property::Property> *properties = nullptr;
  std::vector<ReplayInfo> violationReplays; ///< one per violations->violations
  bool reportAll = false;                   ///< also the findings not confirmed
  std::string command;                      ///< the program, shell-quoted
  std::vector<std::string> argv;            ///< the program and its arguments
  ReportContext ctx;
  /// Members added to the JSON report's "stats" after the race figures:
  /// the pipeline's `stages` and `local_reduction`, as `analyze` writes them.
  nlohmann::ordered_json pipelineStats = nlohmann::ordered_json::object();
};

size_t confirmedCount(const RunReport &r);
/// Candidates the solver left undecided (time-out), of every kind.
size_t unknownCount(const RunReport &r);
/// The last line of the text report: how many findings were predicted,
/// confirmed, diverged and not reproduced (and undecided candidates). `run`
/// prints it on stderr too when the report is JSON or SARIF, so that a log
/// never looks clean when it is not.
std::string runSummary(const RunReport &r);

/// The TSan-shaped text report, then one summary line.
void printRunReport(const RunReport &r, std::ostream &out);
/// The JSON report of DESIGN.md: races / deadlocks (confirmed only unless
/// reportAll) each with "replay" and "replay_detail".
nlohmann::ordered_json runReportJson(const RunReport &r);
/// The same text as jsonText(runReportJson(r)) and a line break, written
/// one finding at a time (streamed_report.h).
void writeRunReportJson(const RunReport &r, std::ostream &out);
/// The HTML page (html_report.h) of the findings the report shows.
void writeRunReportHtml(const RunReport &r, std::ostream &out);
/// SARIF 2.1.0 of the findings the report shows and a line break, written
/// one result at a time (sarif_report.h).
void writeRunReportSarif(const RunReport &r, std::ostream &out);

} // namespace racepredict::report
