//===- batch/classify.h - New, known or suppressed: what a run reports ----===//
//
// After every test ran (here or on Slurm), each finding gets its signature
// (report/signature.h, relative to the source root) and a verdict:
// `suppressed` when a suppression rule matches; else `unconfirmed` when it
// was replayed and replay did not confirm it (status diverged or
// not-reproduced); else `known` when the baseline has its signature; else
// `new`. Only new findings fail a test: replay-confirmed ones, and the
// predicted ones of tests that could not be replayed (the same rule as
// --no-replay); a test whose findings are unconfirmed does not pass either
// (outcome `unconfirmed`). Within one test, a signature seen several times
// (several traces, or two findings the signature does not tell apart) is kept
// once, preferring an occurrence that counts.
//
#pragma once

#include "racepredict/batch/test_result.h"
#include "racepredict/report/baseline.h"
#include "racepredict/report/suppressions.h"

#include <string>
#include <vector>

namespace racepredict::batch {

struct ClassifyConfig {
  const report::Suppressions *suppressions = nullptr;
  const report::Baseline *baseline = nullptr;
  std::string sourceRoot;
};

/// Replayed, and replay did not confirm it (diverged, not-reproduced).
bool replayUnconfirmed(const report::Finding &f);

/// Findings of `t` that are not unconfirmed by replay (what progress
/// counts before the verdicts are known).
size_t countedFindings(const TestResult &t);

/// Sets signature/verdict of every finding; returns hits per rule.
std::vector<size_t> classify(std::vector<TestResult> &tests,
                             const ClassifyConfig &cfg);

/// How a test shows in JUnit: `failed` (a new finding), `error` (not fully
/// analysed: timeout, error, inconclusive), `skipped`, `unconfirmed` (only
/// findings replay did not confirm, besides known or suppressed ones), or
/// `passed`.
std::string testOutcome(const TestResult &t);

struct Summary {
  size_t tests = 0, passed = 0, failed = 0, errors = 0, skipped = 0;
  /// Tests whose outcome is `unconfirmed`.
  size_t unconfirmedTests = 0;
  size_t findings = 0, fresh = 0, known = 0, suppressed = 0, unconfirmed = 0;
  /// Findings whose status is "confirmed" (replayed and confirmed).
  size_t confirmed = 0;
  /// Distinct signatures among the new findings (a race in a shared
  /// function may fail several tests).
  size_t distinctNew = 0;
};
Summary summarize(const std::vector<TestResult> &tests);

} // namespace racepredict::batch
