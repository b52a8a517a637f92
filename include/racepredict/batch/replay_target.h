//===- batch/replay_target.h - Can a test be replay-confirmed? ------------===//
//
// `racepredict run` records ONE program, predicts, and replays each finding
// by running that program again under the witness schedule. A test can go
// through it only when its command is itself an instrumented program: a
// test that runs a script or a shell line may start several instrumented
// processes (each writes its own trace), and no schedule of one trace can
// be imposed on a run of the whole script. Such tests are recorded and
// analysed as before, their findings predicted only, with the reason.
//
// The decision is made before the test runs, from the command alone:
//   - a commands-file line (`/bin/sh -c LINE`) that is a plain word list
//     (no quotes, operators, redirections, expansions, assignments) is the
//     program it names, run without the shell;
//   - the program (PATH looked up in the test's environment, relative
//     names from its working directory) must be an ELF file that contains
//     the racepredict runtime: it defines `__racepredict_init` (the entry
//     point every racepredict-cc module calls at start-up) in its symbol
//     tables — the dynamic one, which `strip` keeps, included.
//
#pragma once

#include "racepredict/batch/test_spec.h"

#include <string>
#include <vector>

namespace racepredict::batch {

struct ReplayTarget {
  /// The program and its arguments for `racepredict run` (ok() only).
  std::vector<std::string> argv;
  /// Why the test cannot be replayed; empty when it can.
  std::string reason;
  bool ok() const { return reason.empty(); }
};

/// Whether (and as which argv) `spec` can be replay-confirmed.
ReplayTarget replayTarget(const TestSpec &spec);

/// The words of a shell line that is nothing but plain words (characters
/// [A-Za-z0-9_./,+:@%=-], the first word without `=`); empty otherwise.
std::vector<std::string> plainShellWords(const std::string &line);

/// Whether the file at `path` is an ELF file that defines the racepredict
/// runtime's entry point; `why` says what it is otherwise ("is not an ELF
/// file", ...).
bool isInstrumentedProgram(const std::string &path, std::string &why);

} // namespace racepredict::batch
