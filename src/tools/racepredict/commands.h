//===- tools/racepredict/commands.h - Subcommands of the racepredict tool -===//
#pragma once

namespace CLI {
class App;
}
namespace racepredict {
class OutputFile;
}

namespace racepredict::tool {

/// Exit codes of DESIGN.md: 0 nothing found, 1 bugs found, 2 usage or input
/// error. Extensions: 3 internal error, 4 inconclusive (nothing found, but
/// some queries ended `unknown`, e.g. by time-out: never reported as clean).
enum ExitCode {
  kExitClean = 0,
  kExitFound = 1,
  kExitInput = 2,
  kExitInternal = 3,
  kExitInconclusive = 4
};

/// Finishes a report's output: `rc`, or kExitInput with the reason on
/// stderr when it could not be written (a full disk, a closed pipe).
int finishOutput(OutputFile &out, int rc);

/// Each adds one subcommand to `app`; its callback stores its exit code.
void addAnalyzeCommand(CLI::App &app, int &exitCode);
void addConvertCommand(CLI::App &app, int &exitCode);
void addCheckTraceCommand(CLI::App &app, int &exitCode);
void addCheckWitnessCommand(CLI::App &app, int &exitCode);
void addBatchCommand(CLI::App &app, int &exitCode);
void addReplayCommand(CLI::App &app, int &exitCode);
void addRunCommand(CLI::App &app, int &exitCode);
void addReportCommand(CLI::App &app, int &exitCode);

} // namespace racepredict::tool
