//===- report/streamed_report.h - The JSON report, finding by finding -----===//
//
// `analyze --format json` and `run --format json` on a trace with
// thousands of races of 50,000-step witnesses: the report document is
// built without its findings (raceReportJson(..., false)), and this writes
// it with the finding arrays streamed -- each entry built alone, its
// "witness" and "steps" written step by step -- so that memory stays that
// of the findings themselves. The text is the same, byte for byte, as
// jsonText of the whole document followed by a line break.
//
#pragma once

#include "racepredict/report/json_writer.h"
#include "racepredict/report/violation_report.h"

#include <functional>
#include <iosfwd>

namespace racepredict::report {

/// The findings whose entries fill a report's arrays; a null pointer
/// leaves that array as the document has it.
struct StreamedFindings {
  const solver::RaceResult *races = nullptr;
  const solver::DeadlockResult *deadlocks = nullptr;
  const solver::PropertyResult *violations = nullptr;
  const Properties *properties = nullptr; ///< with `violations`
  /// Adds to an entry before it is written (`run`: the replay verdicts),
  /// given its index in its array; may be empty.
  std::function<void(size_t, nlohmann::ordered_json &)> decorateRace,
      decorateDeadlock, decorateViolation;
};

/// Writes `doc` (its "races", "deadlocks" and "violations" left empty for
/// the findings of `f`) and a line break.
void writeStreamedReport(std::ostream &out, const trace::Trace &t,
                         const nlohmann::ordered_json &doc,
                         const StreamedFindings &f);

/// A finding entry (raceJson(..., false) and its kin) with its empty
/// "witness" and "steps" written from `witness` and `steps`.
void writeFindingEntry(JsonWriter &w, const nlohmann::ordered_json &entry,
                       const std::vector<trace::EventId> &witness,
                       const std::vector<analysis::Step> &steps);
/// The same for a witness schedule, walked without expanding it.
void writeFindingEntry(JsonWriter &w, const nlohmann::ordered_json &entry,
                       const analysis::WitnessSchedule &schedule);

} // namespace racepredict::report
