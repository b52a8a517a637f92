//===- tools/racepredict/main.cpp - One driver with subcommands -----------===//
#include "commands.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

int main(int argc, char **argv) {
  using namespace racepredict::tool;
  CLI::App app{"racepredict: predict concurrency bugs that did not happen, "
               "from one recorded trace"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "racepredict 0.1.0");
  // Diagnostics go to stderr: stdout carries the report (JSON, SARIF) that
  // CI pipelines parse, and spdlog's default logger writes to stdout.
  auto log = spdlog::stderr_logger_mt("racepredict");
  log->set_pattern("racepredict: %l: %v");
  spdlog::set_default_logger(log);
  int exitCode = kExitClean;
  addAnalyzeCommand(app, exitCode);
  addConvertCommand(app, exitCode);
  addCheckTraceCommand(app, exitCode);
  addCheckWitnessCommand(app, exitCode);
  addBatchCommand(app, exitCode);
  addReplayCommand(app, exitCode);
  addRunCommand(app, exitCode);
  addReportCommand(app, exitCode);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    // --help and --version are "errors" with exit code 0 in CLI11.
    int rc = app.exit(e);
    return rc == 0 ? kExitClean : kExitInput;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "racepredict: internal error: %s\n", e.what());
    return kExitInternal;
  }
  return exitCode;
}
