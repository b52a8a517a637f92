//===- tools/racepredict/main.cpp - One driver with subcommands -----------===//
#include "commands.h"

#include "racepredict/support/file_io.h"
#include "racepredict/support/memory.h"
#include "racepredict/support/utf8.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>

#include <exception>
#include <filesystem>
#include <iostream>

namespace racepredict::tool {

int finishOutput(OutputFile &out, int rc) {
  auto done = out.finish();
  if (done)
    return rc;
  std::cerr << "racepredict: " << done.error().message << "\n";
  return kExitInput;
}

} // namespace racepredict::tool

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
  // Everything printed is UTF-8 (names are bytes: support/utf8.h); a trace
  // written to "-" bypasses this (rawStandardOutput).
  racepredict::Utf8Filter outFilter(std::cout.rdbuf()),
      errFilter(std::cerr.rdbuf());
  std::cout.rdbuf(&outFilter);
  std::cerr.rdbuf(&errFilter);
  // Running out of memory is said as such, in any thread (support/memory.h).
  racepredict::installOutOfMemoryHandler();
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
    exitCode = rc == 0 ? kExitClean : kExitInput;
  } catch (const std::filesystem::filesystem_error &e) {
    // A path the system refused (it names it): the environment's problem.
    std::cerr << "racepredict: " << e.what() << "\n";
    exitCode = kExitInput;
  } catch (const std::exception &e) {
    // Exit 3 is for our own bugs only: every input and resource problem
    // has its own message and status before it gets here.
    std::cerr << "racepredict: internal error: " << e.what() << "\n";
    exitCode = kExitInternal;
  }
  // A report that did not reach standard output (a full disk, a closed
  // pipe) is not a result: say so, and exit as for an input problem.
  auto out = racepredict::finishStandardOutput();
  std::cout.rdbuf(outFilter.underlying());
  if (!out) {
    std::cerr << "racepredict: " << out.error().message << "\n";
    if (exitCode != kExitInternal)
      exitCode = kExitInput;
  }
  errFilter.finish();
  std::cerr.rdbuf(errFilter.underlying());
  return exitCode;
}
