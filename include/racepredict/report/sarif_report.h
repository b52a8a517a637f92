//===- report/sarif_report.h - SARIF of one analysis, result by result ----===//
//
// `analyze`/`run --format sarif` on a trace with thousands of races of
// 50,000-step witnesses: built as one document (sarifReport, then
// addViolationsToSarif) the log of `app` 30K --all-pairs needed 9.6 GB for
// a 1.16 GB file. This writes the same text, byte for byte, one result at
// a time: each finding is resolved, turned into its result, written and
// dropped before the next, so memory stays that of one finding.
//
#pragma once

#include "racepredict/report/report.h"
#include "racepredict/report/violation_report.h"

#include <iosfwd>

namespace racepredict::report {

/// jsonText(sarifReport(...)) with addViolationsToSarif(..., *violations,
/// *properties) when `violations` is given, and a line break.
void writeSarifReport(std::ostream &out, const trace::Trace &t,
                      const solver::RaceResult &races,
                      const solver::DeadlockResult *deadlocks,
                      const solver::PropertyResult *violations,
                      const Properties *properties, const ReportContext &ctx);

} // namespace racepredict::report
