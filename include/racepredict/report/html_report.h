//===- report/html_report.h - The witness as a page a developer can see ---===//
//
// `--format html` and `racepredict report … --html OUT`: one self-contained
// HTML file (inline CSS and JavaScript, no network at view time) with a list
// of findings to switch between and, per finding, a swimlane per thread
// along the witness order: the racing pair or the blocked requests
// highlighted, synchronisation edges (lock hand-offs, fork/begin, end/join,
// notify/wait, post/wait) drawn, runs of other steps folded as in the text
// report (report/witness_condense.h) and expandable, and each step's source
// line on hover and click. The page is data (a JSON model, below) plus one
// script that draws it (src/report/html/witness_view.js).
//
#pragma once

#include "racepredict/report/report.h"
#include "racepredict/report/run_report.h"
#include "racepredict/support/error.h"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace racepredict::report {

/// One finding to draw: its kind and headline, the events that are the
/// finding (racing accesses, blocked requests), the witness steps, and
/// the accesses or blocked threads with their stacks.
struct HtmlFinding {
  std::string kind;    ///< "race", "deadlock"
  std::string title;   ///< "data race on test01::GLOB"
  std::string status;  ///< "predicted", "confirmed", "diverged", …
  std::string summary; ///< the SUMMARY line's locations
  std::vector<trace::EventId> events;  ///< the finding's own events
  std::vector<std::string> eventNotes; ///< one headline per event
  /// The schedule: the page's steps are its events. A race's shares
  /// what the predictor's finding shares (analysis/witness_schedule.h):
  /// expanded one finding at a time, while its model is written.
  analysis::WitnessSchedule witness;
  /// Deadlock: each blocked request and the acquisition of the lock it
  /// waits for (the cycle, drawn as edges).
  std::vector<std::pair<trace::EventId, trace::EventId>> waitsFor;
};

/// The findings of an analysis (and, when replayed, their verdicts: the
/// replays are parallel to races then deadlocks; empty = not replayed).
std::vector<HtmlFinding>
htmlFindings(const trace::Trace &t, const solver::RaceResult &races,
             const solver::DeadlockResult *deadlocks,
             const std::vector<ReplayInfo> &raceReplays = {},
             const std::vector<ReplayInfo> &deadlockReplays = {});

/// The findings of a JSON report (DESIGN.md: races with first, second and
/// witness; deadlocks with blocked and witness; `replay` when replayed) on
/// the trace it was made from. An event index outside the trace is an
/// error naming the finding.
Expected<std::vector<HtmlFinding>>
htmlFindingsFromJson(const trace::Trace &t, const nlohmann::json &j);

/// The page's data: per finding its threads, steps (with source text),
/// condensed lines, folds and synchronisation edges.
nlohmann::ordered_json htmlModel(const trace::Trace &t,
                                 const std::vector<HtmlFinding> &findings,
                                 const ReportContext &ctx);

/// Writes htmlModel's bytes (compact, "</" written "<\/" so that the
/// model can sit in a script element) one finding at a time.
void writeHtmlModel(const trace::Trace &t,
                    const std::vector<HtmlFinding> &findings,
                    const ReportContext &ctx, std::ostream &out);

/// Writes the page.
void writeHtmlReport(const trace::Trace &t,
                     const std::vector<HtmlFinding> &findings,
                     const ReportContext &ctx, std::ostream &out);

} // namespace racepredict::report
