//===- batch/test_step.h - The per-test step: replay-confirm or predict ---===//
//
// One function turns a test into a TestResult, so the rest of batch
// (parallelism, budgets, reports, Slurm) does not care how. Two paths:
//
//  - replayed (the default, when the test's command is one instrumented
//    program: batch/replay_target.h): `racepredict run --format json
//    --report-all -- COMMAND` records it, predicts, replays every finding
//    and reports each with its verdict (confirmed / diverged /
//    not-reproduced), which becomes the finding's status
//    (batch/run_step.h);
//  - recorded (--no-replay, a script or shell line that may start several
//    instrumented processes, a program that crashed while recorded):
//      1. run the command with RACEPREDICT_OPTIONS=trace=DIR/NAME.%p.rptrace
//         (one trace per instrumented process);
//      2. run `racepredict analyze TRACE --format json` on every trace;
//    findings are then *predicted* (each witness validated on the trace
//    semantics), not replayed, and the test says why (replayNote).
//  A recorded trace (--traces) is analysed only: there is no program.
//
// Analysis and replay run as subprocesses of this very binary, not
// in-process: a test's time budget can then end them at any point (an
// in-process solver can only be bounded per query), and a crash or memory
// blow-up of one analysis cannot take the whole batch down. In both paths
// the report's event indices are resolved against the trace to source
// locations (batch/analyze_report.h).
//
#pragma once

#include "racepredict/batch/process.h"
#include "racepredict/batch/test_result.h"

#include <string>
#include <vector>

namespace racepredict::batch {

struct StepConfig {
  std::string racepredict; ///< this binary, for `analyze` and `run`
  /// Extra analysis flags of `analyze` and `run` (--deadlocks,
  /// --timeout-ms N, …).
  std::vector<std::string> analyzeFlags;
  /// Replay-confirm the findings of tests that are one program (`run`).
  bool replay = true;
  /// Extra `run` flags (--step-timeout-ms N, --replay-timeout S).
  std::vector<std::string> replayFlags;
  /// Traces, reports, witnesses and test output go under WORKDIR/<test>/.
  std::string workDir;
  /// Seconds for recording + analysis (+ replays); 0 = none.
  double testTimeout = 0;
};

/// Runs test number `index` of the batch. `budgetEnd` is the end of the
/// whole-run budget: the test stops at the earlier of it and its own
/// time-out, and says which one ended it.
TestResult runTestStep(const TestSpec &spec, size_t index,
                       const StepConfig &cfg, Clock::time_point budgetEnd);

} // namespace racepredict::batch
