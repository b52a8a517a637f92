//===- batch/runner.h - Run the per-test step over many tests -------------===//
#pragma once

#include "racepredict/batch/progress.h"
#include "racepredict/batch/test_step.h"

#include <vector>

namespace racepredict::batch {

struct RunnerConfig {
  unsigned jobs = 1; ///< tests run at once
  StepConfig step;
  /// End of the whole-run budget (--budget); tests not started by then are
  /// reported as timed out, never as clean.
  Clock::time_point budgetEnd = Clock::time_point::max();
};

/// Results in the order of `tests`, whatever order they finished in.
std::vector<TestResult> runLocally(const std::vector<TestSpec> &tests,
                                   const RunnerConfig &cfg, Progress &progress);

} // namespace racepredict::batch
