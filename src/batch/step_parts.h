//===- batch/step_parts.h - Pieces shared by the two per-test paths -------===//
//
// Private to src/batch: the recorded path (record every process, analyse
// each trace: test_step.cpp) and the replayed path (`racepredict run`:
// run_step.cpp) share the time budget and the way a JSON report becomes
// findings.
//
#pragma once

#include "racepredict/batch/test_step.h"

#include <string>
#include <vector>

namespace racepredict::batch {

/// When the step must be over, and which limit that is.
struct Budget {
  Clock::time_point end;
  bool isWholeRun; ///< `end` is the whole-run budget, not the test's
  /// Why a step stopped at `end` (the end of a sentence).
  std::string why(const StepConfig &cfg) const;
};

/// The earlier of the whole-run budget and the test's own time-out,
/// counted from `start`.
Budget stepBudget(const StepConfig &cfg, Clock::time_point start,
                  Clock::time_point budgetEnd);

/// Reads the JSON report `reportPath` (of `analyze` or `run`) on the trace
/// `tracePath`: the trace's result, its findings appended to `findings`.
TraceResult readReport(const std::string &reportPath,
                       const std::string &tracePath,
                       std::vector<TestFinding> &findings);

/// Analyses one trace with `racepredict analyze` in a subprocess
/// (predicted findings).
TraceResult analyzeTrace(const std::string &tracePath, const StepConfig &cfg,
                         const Budget &budget,
                         std::vector<TestFinding> &findings);

/// The per-test work directory WORKDIR/<index>-<name>, created empty;
/// an error message when it cannot be.
Expected<std::string> testWorkDir(const TestSpec &spec, size_t index,
                                  const StepConfig &cfg);

/// The replayed path: `racepredict run --report-all` on `argv`, the
/// command of `spec` as one program. Fills `res` (status, traces,
/// findings with their verdicts, how the program ended).
void runReplayed(const TestSpec &spec, const std::vector<std::string> &argv,
                 const std::string &dir, const StepConfig &cfg,
                 const Budget &budget, TestResult &res);

} // namespace racepredict::batch
