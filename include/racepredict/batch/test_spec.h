//===- batch/test_spec.h - What batch runs: tests and recorded traces -----===//
//
// Three inputs, one list: a CTest build directory (`ctest
// --show-only=json-v1`: command, WORKING_DIRECTORY, ENVIRONMENT, DISABLED),
// a file of shell command lines, or a directory of recorded traces. The list
// round-trips through JSON so `--slurm` can hand each array task its chunk.
//
#pragma once

#include "racepredict/support/error.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace racepredict::batch {

struct TestSpec {
  std::string name;
  /// The command (argv); empty for a recorded trace.
  std::vector<std::string> command;
  std::string cwd;              ///< empty: the current directory
  std::vector<std::string> env; ///< KEY=VALUE added to the environment
  /// A recorded trace to analyse instead of running a command.
  std::string trace;
  /// Not run (ctest DISABLED): reported as skipped with this reason.
  std::string skipReason;
};

/// Parses `ctest --show-only=json-v1` output. `origin` names it in errors.
Expected<std::vector<TestSpec>> parseCTestJson(const nlohmann::json &j,
                                               const std::string &origin);

/// Runs `ctest --show-only=json-v1` in `buildDir` and parses its output.
Expected<std::vector<TestSpec>> discoverCTest(const std::string &buildDir);

/// One test per line: `[NAME] COMMAND…` or `COMMAND…` (named after the
/// program, numbered when repeated); `#` comments and blank lines are
/// skipped. Commands run with /bin/sh -c in the file's directory.
Expected<std::vector<TestSpec>> parseCommandsFile(const std::string &path);

/// Every `*.rptrace`, `*.rpt.txt` and `*.std` file in `dir`, sorted by
/// name; each is one test named after the file.
Expected<std::vector<TestSpec>> listTraceDir(const std::string &dir);

/// Keeps the tests whose names match `include` (if non-empty) and do not
/// match `exclude` (ECMAScript regex search, as ctest -R / -E).
Expected<std::vector<TestSpec>> filterTests(std::vector<TestSpec> tests,
                                            const std::string &include,
                                            const std::string &exclude);

nlohmann::ordered_json specJson(const TestSpec &s);
Expected<TestSpec> specFromJson(const nlohmann::json &j);

/// A name usable as a file name (`[A-Za-z0-9._-]`, others become `_`).
std::string fileSafeName(const std::string &name);

} // namespace racepredict::batch
