//===- report/violation_report.h - Property violations: text, JSON, SARIF -===//
#pragma once

#include "racepredict/report/report.h"
#include "racepredict/solver/property_predictor.h"

#include <string>
#include <vector>

namespace racepredict::report {

using Properties = std::vector<property::Property>;

/// One entry of the report's "violations" array (`witness`: as
/// report::raceJson).
nlohmann::ordered_json violationJson(const trace::Trace &t,
                                     const solver::ViolationFinding &v,
                                     const Properties &props, bool witness);
/// The "violations" array of the JSON report (DESIGN.md): per violation
/// the property, its form and pattern, the step events, the variable
/// binding, whether the observed run already shows it, and the witness.
nlohmann::ordered_json violationsJson(const trace::Trace &t,
                                      const solver::PropertyResult &r,
                                      const Properties &props);

/// Undecided candidates (time-out, candidate limit) as entries of the
/// report's "unknown" array: {"property", "events", "reason"}.
nlohmann::ordered_json unknownViolationsJson(const solver::PropertyResult &r,
                                             const Properties &props);

/// One violation: a `WARNING: racepredict: property violation (HEADLINE):
/// NAME` block with the pattern, the binding, the events matched to its
/// steps and the witness schedule.
void printViolation(const trace::Trace &t, const solver::ViolationFinding &v,
                    const Properties &props, const std::string &headline,
                    std::ostream &out, bool fullWitness = false);

/// Per violation the pattern, the events matched to its steps and the
/// witness schedule; then a summary line.
void printViolationReport(const trace::Trace &t,
                          const solver::PropertyResult &r,
                          const Properties &props, const ReportContext &ctx,
                          std::ostream &out);

/// The SARIF rule of property violations, and one violation as a result
/// under it (rule `ruleIndex` of the log).
nlohmann::ordered_json violationSarifRule();
nlohmann::ordered_json violationSarifResult(const trace::Trace &t,
                                            const solver::ViolationFinding &v,
                                            const Properties &props,
                                            size_t ruleIndex);

/// Appends one rule ("property-violation") and one result per violation to
/// the first run of a SARIF log made by sarifReport.
void addViolationsToSarif(nlohmann::ordered_json &sarif, const trace::Trace &t,
                          const solver::PropertyResult &r,
                          const Properties &props);

/// One witness file (the shape of the race files of --witness-dir, with
/// "kind": "violation"): everything a replayer needs — the schedule as
/// events and as steps with wait/barrier halves, and the violating events
/// in step order.
nlohmann::ordered_json violationWitnessJson(const trace::Trace &t,
                                            const solver::PropertyResult &r,
                                            size_t index,
                                            const Properties &props,
                                            const std::string &tracePath);

/// Writes violation-<n>.json (n = index in the report's "violations") into
/// `dir`; returns false and sets `err` if a file cannot be written.
bool writeViolationWitnessFiles(const std::string &dir, const trace::Trace &t,
                                const solver::PropertyResult &r,
                                const Properties &props,
                                const std::string &tracePath, std::string *err);

} // namespace racepredict::report
