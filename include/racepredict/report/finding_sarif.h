//===- report/finding_sarif.h - SARIF 2.1.0 from resolved findings --------===//
//
// One SARIF run for any number of findings (one trace for `analyze`, a
// whole test suite for `batch`): a rule per finding kind, the finding's
// sites as locations, its witness as a codeFlow with one threadFlow per
// thread sharing one executionOrder (racing accesses / blocked requests
// `essential`), artifact URIs relative to the source root (uriBaseId
// %SRCROOT%), and partialFingerprints from the finding's signature — the
// shape GitHub code scanning ingests (PLATFORM_NOTES "Reports and CI").
//
#pragma once

#include "racepredict/report/finding.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace racepredict::report {

struct SarifFinding {
  const Finding *finding = nullptr;
  std::string signature; ///< findingSignature(*finding, sourceRoot)
  /// Extra result properties (e.g. tests and traces that exhibit it).
  nlohmann::ordered_json properties = nlohmann::ordered_json::object();
};

/// A tool execution notification: a test that timed out, a query that
/// ended unknown — reported, so an incomplete run never looks clean.
struct SarifNotification {
  std::string level; ///< "error", "warning" or "note"
  std::string message;
};

struct SarifOptions {
  std::string version = "0.1.0";
  /// Absolute directory; files under it get repo-relative URIs.
  std::string sourceRoot;
  bool executionSuccessful = true;
  std::vector<SarifNotification> notifications;
  nlohmann::ordered_json runProperties = nlohmann::ordered_json::object();
};

/// Most steps a code flow lists one by one: GitHub code scanning rejects a
/// result with more thread flow locations (its hard limit; it shows the
/// 1,000 most important). A longer witness keeps its essential and
/// important steps and folds each run of other steps into one location
/// per thread ("… 4,980 steps of t1 …"), so the whole schedule is still
/// there, step ranges included.
constexpr size_t kMaxSarifFlowSteps = 10000;

nlohmann::ordered_json sarifFromFindings(const std::vector<SarifFinding> &fs,
                                         const SarifOptions &opts);

/// The parts of sarifFromFindings, for a log written one result at a time
/// (sarif_report.h): one finding's result, and the log around `results`.
nlohmann::ordered_json sarifResult(const SarifFinding &sf,
                                   const SarifOptions &opts);
nlohmann::ordered_json sarifLog(nlohmann::ordered_json results,
                                const SarifOptions &opts);

/// The URI of a recorded source file: `path` relative to the source root
/// (with `uriBaseId`), `file://` for other absolute paths, else relative.
nlohmann::ordered_json artifactLocation(const std::string &file,
                                        const std::string &sourceRoot);

} // namespace racepredict::report
