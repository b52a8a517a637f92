//===- replay/replay_driver.h - Replay one schedule, get its verdict ------===//
#pragma once

#include "racepredict/replay/runner.h"
#include "racepredict/replay/schedule.h"
#include "racepredict/replay/violation_verdict.h"

#include <string>
#include <vector>

namespace racepredict::replay {

struct ReplayRequest {
  std::vector<std::string> argv;
  std::string stdinFile;
  /// Where the schedule file and the verdict go (both kept).
  std::string schedulePath, resultPath;
  std::string outputFile; ///< the program's stdout+stderr; "" = inherit
  unsigned stepTimeoutMs = 3000;
  bool verbose = false; ///< the runtime prints every step
  bool keepAslr = false;
  double timeoutSeconds = 120;
  double graceSeconds = 2; ///< < 0: wait for the program to end
  std::string traceOut;    ///< also record the replayed run here
  /// Violation schedules: the property and the violating events, to judge
  /// what the replayed steps did (replay/violation_verdict.h). Must
  /// outlive the call.
  const ViolationTarget *violation = nullptr;
  const trace::Trace *trace = nullptr; ///< the trace `violation` refers to
};

struct ReplayOutcome {
  Verdict verdict = Verdict::NotReproduced;
  std::string message, location, variable;
  uint32_t step = 0, steps = 0;
  RunOutcome run;
  /// The program wrote no result file (not instrumented, or killed).
  bool noVerdict = false;
};

/// The RACEPREDICT_OPTIONS entries that replay `schedulePath` (what a
/// debugger session needs in its environment).
std::vector<std::string> replayOptions(const ReplayRequest &r);

/// Writes the schedule, runs the program under it and reads the verdict.
/// Errors: the schedule cannot be written or the program not started. A
/// program that leaves no verdict is `not-reproduced` with the reason.
Expected<ReplayOutcome> replaySchedule(const Schedule &s,
                                       const ReplayRequest &r);

} // namespace racepredict::replay
