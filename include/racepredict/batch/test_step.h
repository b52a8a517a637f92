//===- batch/test_step.h - The per-test step: record, then analyse --------===//
//
// One function turns a test into a TestResult, so the rest of batch
// (parallelism, budgets, reports, Slurm) does not care how. Today it is
// record + analyse:
//   1. run the test's command with
//   RACEPREDICT_OPTIONS=trace=DIR/NAME.%p.rptrace
//      (a test may start several instrumented processes: one trace each);
//   2. run `racepredict analyze TRACE --format json` on every trace;
//   3. resolve the reported event indices to source locations.
// Findings are then *predicted* (each witness validated on the trace
// semantics), not replay-confirmed, and say so (Finding::status).
// When `racepredict run` (record → analyze → replay-confirm) is available,
// steps 1–2 become one `racepredict run --format json -- COMMAND` per test;
// findingsFromReport already maps its `replay` field to the status.
//
// Analysis runs as a subprocess of this very binary, not in-process: a
// test's time budget can then end it at any point (an in-process solver can
// only be bounded per query), a crash or memory blow-up of one analysis
// cannot take the whole batch down, and the step has the same shape as
// the `racepredict run` subprocess it will become.
//
#pragma once

#include "racepredict/batch/process.h"
#include "racepredict/batch/test_result.h"

#include <string>
#include <vector>

namespace racepredict::batch {

struct StepConfig {
  std::string racepredict; ///< this binary, for `analyze`
  /// Extra `analyze` flags (--deadlocks, --timeout-ms N, …).
  std::vector<std::string> analyzeFlags;
  /// Traces, analysis reports and test output go under WORKDIR/<test>/.
  std::string workDir;
  double testTimeout = 0; ///< seconds for record + analyse; 0 = none
};

/// Runs test number `index` of the batch. `budgetEnd` is the end of the
/// whole-run budget: the test stops at the earlier of it and its own
/// time-out, and says which one ended it.
TestResult runTestStep(const TestSpec &spec, size_t index,
                       const StepConfig &cfg, Clock::time_point budgetEnd);

} // namespace racepredict::batch
