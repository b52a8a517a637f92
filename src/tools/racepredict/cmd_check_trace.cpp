//===- tools/racepredict/cmd_check_trace.cpp - `racepredict check-trace` --===//
//
// Validates that a trace is a sequentially consistent observation (what the
// recorder promises, docs/recording.md). Exit 0 when it is, 2 with
// "FILE: event N: ..." lines when it is not or cannot be read.
//
#include "commands.h"

#include "racepredict/trace/trace_file.h"
#include "racepredict/trace/validate.h"

#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

namespace racepredict::tool {
namespace {

struct CheckArgs {
  std::vector<std::string> traces;
  bool allowTruncated = false;
  size_t maxErrors = 10;
  bool quiet = false;
};

int checkOne(const std::string &path, const CheckArgs &a) {
  trace::ReadOptions ro;
  ro.allowTruncated = a.allowTruncated;
  trace::ReadInfo info;
  auto t = trace::readTraceFile(path, ro, &info);
  if (!t) {
    std::cerr << "racepredict: " << t.error().message << "\n";
    return kExitInput;
  }
  if (info.truncated)
    std::cerr << "racepredict: warning: " << info.truncation
              << " (checking the events before the cut)\n";
  auto violations = trace::validateTrace(*t, a.maxErrors);
  for (const auto &v : violations)
    std::cerr << trace::violationText(*t, v, path, info.eventLines) << "\n";
  if (!violations.empty())
    return kExitInput;
  if (!a.quiet)
    std::cout << path << ": consistent (" << t->events.size() << " events, "
              << t->numThreads() << " threads)\n";
  return kExitClean;
}

} // namespace

void addCheckTraceCommand(CLI::App &app, int &exitCode) {
  auto args = std::make_shared<CheckArgs>();
  CLI::App *cmd = app.add_subcommand(
      "check-trace", "Check that a trace is a sequentially consistent run: "
                     "reads see the last write, locks are exclusive, waits "
                     "follow their notify, fork/join order threads");
  cmd->add_option("traces", args->traces, "Trace files (any format)")
      ->required();
  cmd->add_flag("--allow-truncated", args->allowTruncated,
                "Accept a binary trace without its END block");
  cmd->add_option("--max-errors", args->maxErrors,
                  "Violations to print per trace (default 10)");
  cmd->add_flag("-q,--quiet", args->quiet, "Print nothing when consistent");
  cmd->callback([args, &exitCode] {
    int worst = kExitClean;
    for (const std::string &p : args->traces) {
      int rc = checkOne(p, *args);
      if (rc != kExitClean)
        worst = rc;
    }
    exitCode = worst;
  });
}

} // namespace racepredict::tool
