//===- batch/batch_report.h - JUnit, SARIF, JSON and the summary ----------===//
//
// Every output of `racepredict batch` is written from one BatchRun, whether
// the tests ran here or as Slurm array tasks, after classify() gave each
// finding its verdict.
//
#pragma once

#include "racepredict/batch/classify.h"
#include "racepredict/report/baseline.h"

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>
#include <vector>

namespace racepredict::batch {

struct BatchRun {
  std::vector<TestResult> tests;
  std::string input;    ///< `ctest DIR`, `commands FILE`, `traces DIR`
  std::string executor; ///< `local, -j 2` or `slurm job 12, 3 tasks`
  std::string sourceRoot;
  std::string version = "0.1.0";
  std::string started; ///< ISO 8601 UTC
  std::string hostname;
  double seconds = 0;
  const report::Suppressions *suppressions = nullptr;
  std::vector<size_t> suppressionHits;
  std::string baselinePath; ///< empty: no baseline
  /// Tests were replay-confirmed where possible (not --no-replay, not a
  /// --traces input).
  bool replay = true;
};

/// How far findings are confirmed and which ones count, said once in
/// every report.
std::string confirmationNote(const BatchRun &run);

nlohmann::ordered_json batchJson(const BatchRun &run);

/// JUnit XML: one testcase per test; one <failure> per new finding with
/// its witness and replay verdict; <error> for timeout/error/inconclusive
/// with the reason; <skipped> with the reason; unconfirmed findings as
/// testcase properties and in <system-out>, never as failures. Attribute
/// counts are testcases (a testcase with a failure counts as failed, else
/// with an error as an error).
std::string junitXml(const BatchRun &run);

/// SARIF 2.1.0: one result per distinct signature (new and known at level
/// "error", unconfirmed at level "warning" with the replay verdict in the
/// message and properties; baselineState new/unchanged when a baseline was
/// given; suppressed ones left out), properties listing the tests that
/// exhibit it, and a tool execution notification for every test not fully
/// analysed.
nlohmann::ordered_json batchSarif(const BatchRun &run);

/// The signatures of every finding that counts, new or known (for
/// --write-baseline): neither suppressed nor unconfirmed ones.
report::Baseline baselineOf(const BatchRun &run);

/// The CI-log summary: counts, then one line per new finding, per
/// unconfirmed finding and per test not fully analysed.
void printSummary(const BatchRun &run, std::ostream &out);

/// How far a finding is confirmed, in words: "predicted, not replayed",
/// "replay confirmed: <message>", "replay diverged: <message>", …
std::string findingStatusText(const TestFinding &f);

/// The finding, its replay verdict and its witness as numbered steps
/// (JUnit failure text).
std::string witnessText(const TestFinding &f);

} // namespace racepredict::batch
