//===- batch/process.h - Run a child process under a deadline -------------===//
//
// Tests run in their own process group so a time-out kills everything they
// started (a test script and the instrumented programs under it): SIGTERM
// first — the recording runtime flushes its trace on SIGTERM — then SIGKILL
// after a grace period. posix_spawn, because batch runs tests from several
// threads and fork() in a multi-threaded process may only call
// async-signal-safe functions before exec.
//
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace racepredict::batch {

using Clock = std::chrono::steady_clock;

struct ProcessSpec {
  std::vector<std::string> argv; ///< argv[0] is looked up in PATH
  std::string cwd;               ///< empty: the current directory
  /// The complete environment (KEY=VALUE); see environmentWith().
  std::vector<std::string> env;
  /// stdout and stderr go here (one file, in order); empty: /dev/null.
  std::string outputPath;
  Clock::time_point deadline = Clock::time_point::max();
  /// Between SIGTERM and SIGKILL at the deadline.
  std::chrono::milliseconds killGrace{2000};
};

struct ProcessResult {
  enum class Status { Exited, Signaled, TimedOut, SpawnFailed };
  Status status = Status::SpawnFailed;
  int exitCode = -1; ///< Exited
  int signal = 0;    ///< Signaled (also the signal that ended a time-out)
  std::string error; ///< SpawnFailed: why
  double seconds = 0;
  bool ok() const { return status == Status::Exited && exitCode == 0; }
  /// "exit status 3", "signal 11 (Segmentation fault)", "timed out", …
  std::string describe() const;
};

ProcessResult runProcess(const ProcessSpec &spec);

/// The current environment with `overrides` (KEY=VALUE) replacing or adding
/// variables.
std::vector<std::string>
environmentWith(const std::vector<std::string> &overrides);

/// The value of KEY in an environment vector (empty when absent).
std::string envValue(const std::vector<std::string> &env,
                     const std::string &key);

/// The last `maxBytes` of a file (whole lines where possible).
std::string fileTail(const std::string &path, size_t maxBytes);

} // namespace racepredict::batch
