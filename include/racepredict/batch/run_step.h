//===- batch/run_step.h - The replayed path: `racepredict run` per test ---===//
//
// A test whose command is one instrumented program (batch/replay_target.h)
// goes through
//   racepredict run --format json --report-all -o WORK/run.json
//       --trace-out WORK/NAME.rptrace --witness-dir WORK/witnesses
//       [analysis flags] [replay flags] -- PROGRAM ARGS…
// in the test's working directory and environment: record, predict, replay
// every finding (docs/replay.md). Each finding's status becomes its replay
// verdict, its replay_detail is kept with the command that replays its
// witness again. The whole of it — recording, analysis, every replay — is
// one subprocess under the test's deadline.
//
// `run` does not replay a program that was killed by a signal while it was
// recorded (exit 2, trace kept): then the kept trace is analysed like a
// recorded test's, its findings predicted only, and the test says why.
//
#pragma once

#include "racepredict/batch/test_step.h"

#include <string>
#include <vector>

namespace racepredict::batch {

/// What `racepredict run` said about the program, from its output (the
/// program's output comes first in the same file).
struct RunLog {
  /// "exit status N" or "signal N (NAME)"; "exit status 0" when run
  /// reported nothing unusual.
  std::string ran = "exit status 0";
  bool programFailed = false;
  bool crashed = false; ///< killed by a signal while recording
  /// Recording and analysis are over, the replays started.
  bool replaying = false;
  /// The last `racepredict: …` error line (without the prefix).
  std::string error;
};
RunLog parseRunLog(const std::string &output);

/// The `racepredict run` command line for a test: the report, kept trace
/// and witness files go to `dir`; `program` is the test as one program.
std::vector<std::string> runArgv(const StepConfig &cfg, const std::string &dir,
                                 const std::string &trace,
                                 const std::vector<std::string> &program);

/// A shell command that replays `witnessFile` again: in the test's working
/// directory, with its ENVIRONMENT, the same program and arguments.
std::string reproduceCommand(const TestSpec &spec,
                             const std::vector<std::string> &program,
                             const std::string &racepredict,
                             const std::string &witnessFile);

} // namespace racepredict::batch
