//===- replay/runner.h - Run the program under record or replay -----------===//
//
// `run` and `replay` start the program the same way every time: the same
// argv, the same stdin (a file, or /dev/null), the same environment except
// RACEPREDICT_OPTIONS, and address-space randomisation off where the kernel
// allows it (personality(ADDR_NO_RANDOMIZE)), so that pointer values and
// allocator decisions repeat between the recording and its replays.
//
#pragma once

#include "racepredict/support/error.h"

#include <atomic>
#include <map>
#include <string>
#include <vector>

namespace racepredict::replay {

struct RunSpec {
  std::vector<std::string> argv; ///< program and its arguments
  std::string stdinFile;         ///< "" = /dev/null
  std::string outputFile;        ///< stdout+stderr; "" = inherit both
  /// With no outputFile: the program's stdout goes to our stderr (so that
  /// our stdout carries only the report).
  bool stdoutToStderr = false;
  /// RACEPREDICT_OPTIONS entries for this run (name=value); they replace
  /// the user's entries of the same names, the user's others are kept.
  std::vector<std::string> options;
  bool keepAslr = false;
  double timeoutSeconds = 0; ///< kill after this long (0 = never)
  /// Once this file holds a verdict, give the program `graceSeconds` to
  /// end, then kill it (replays need the verdict, not the program's end);
  /// a negative grace waits for the program whatever happens.
  std::string verdictFile;
  double graceSeconds = 2;
  /// Once this becomes non-zero (a signal handler sets it: `run` was
  /// interrupted), the program gets SIGTERM -- the recorder writes its
  /// trace; a second later if it shares our process group, which a Ctrl-C
  /// reaches too -- and SIGKILL `interruptGraceSeconds` after the interrupt
  /// if it is still running.
  const std::atomic<int> *interrupt = nullptr;
  double interruptGraceSeconds = 5;
};

struct RunOutcome {
  bool exited = false; ///< false: killed by a signal
  int exitCode = 0;
  int signal = 0;
  bool timedOut = false;    ///< killed by timeoutSeconds
  bool killedByUs = false;  ///< killed after the verdict's grace period
  bool interrupted = false; ///< got SIGTERM (and maybe SIGKILL): interrupt
};

/// Starts the program and waits for it. Errors: the program cannot be
/// found or started.
Expected<RunOutcome> runProgram(const RunSpec &spec);

/// The value RACEPREDICT_OPTIONS gets: the user's entries (from the
/// environment) without the ones `ours` sets, then `ours`.
std::string composeOptions(const char *userOptions,
                           const std::vector<std::string> &ours);

/// The program as execve needs it: a path with a slash as is, else the
/// first executable match on PATH.
Expected<std::string> resolveProgram(const std::string &name);

enum class Verdict { Confirmed, Diverged, NotReproduced };
const char *verdictName(Verdict v);

/// What the replay runtime wrote to its result file (docs/replay.md).
struct ReplayResult {
  Verdict verdict = Verdict::NotReproduced;
  uint32_t step = 0, steps = 0;
  std::string message, location, variable;
  std::map<std::string, std::string> fields;
  /// A violation schedule ran to its end (verdict `reached`): `verdict`
  /// stays NotReproduced until the tool judges `observations`, the values
  /// of the `observe` lines (replay/violation_verdict.h).
  bool reached = false;
  std::vector<std::string> observations;
};

/// Parses a result file; an Error when it is missing or has no verdict.
Expected<ReplayResult> readReplayResult(const std::string &path);

} // namespace racepredict::replay
