//===- tools/racepredict/cmd_check_witness.cpp - Re-validate witnesses ----===//
//
// `racepredict check-witness TRACE FILE.json` replays every witness of a
// report — races, deadlocks and property violations — (or one witness file
// from --witness-dir)
// against the trace semantics of docs/semantics.md, independently of the
// solver that found it: for bug reports that carry a witness, and for the
// test suite, which runs it on every report it produces.
//
#include "commands.h"

#include "check_violation.h"
#include "racepredict/property/parser.h"
#include "racepredict/report/witness_reader.h"
#include "racepredict/trace/trace_file.h"

#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

namespace racepredict::tool {
namespace {

struct CheckWitnessArgs {
  std::string trace;
  std::string witness;
  std::vector<std::string> properties; ///< for violations' patterns
  bool allowTruncated = false;
};

int runCheckWitness(const CheckWitnessArgs &args) {
  trace::ReadOptions ro;
  ro.allowTruncated = args.allowTruncated;
  trace::ReadInfo info;
  auto t = trace::readTraceFile(args.trace, ro, &info);
  if (!t) {
    std::cerr << "racepredict: " << t.error().message << "\n";
    return kExitInput;
  }
  if (info.truncated)
    std::cerr << "racepredict: warning: " << info.truncation
              << " (checking against the events before the cut)\n";
  // The schema `replay` reads too (report/witness_reader.h): a malformed
  // entry is an input error naming the entry and the field.
  auto witnesses = report::readWitnesses(args.witness);
  if (!witnesses) {
    std::cerr << "racepredict: " << witnesses.error().message << "\n";
    return kExitInput;
  }
  std::vector<property::Property> props;
  for (const std::string &file : args.properties) {
    auto ps = property::parsePropertyFile(file);
    if (!ps) {
      std::cerr << "racepredict: " << ps.error().message << "\n";
      return kExitInput;
    }
    props.insert(props.end(), ps->begin(), ps->end());
  }
  analysis::TraceIndex idx(*t);
  // Races among accesses of different sizes are checked on their pieces.
  std::optional<analysis::PieceIndex> pieces;
  if (auto p = analysis::splitOverlappingAccesses(*t))
    pieces.emplace(std::move(*p));
  size_t bad = 0;
  size_t numbers[3] = {0, 0, 0}; // per kind, as the report lists them
  for (const report::WitnessSpec &w : *witnesses) {
    size_t k = numbers[static_cast<int>(w.kind)]++;
    auto steps =
        report::witnessSteps(idx, w, nullptr, pieces ? &*pieces : nullptr);
    std::optional<std::string> err;
    if (!steps)
      err = steps.error().message;
    else if (w.kind == report::WitnessKind::Violation)
      err = checkViolationPattern(idx, w, props);
    if (!err)
      continue;
    ++bad;
    std::cout << args.witness << ": " << report::witnessKindName(w.kind) << " "
              << k;
    if (w.kind == report::WitnessKind::Race)
      std::cout << " (" << w.first << ", " << w.second << ")";
    if (w.kind == report::WitnessKind::Violation)
      std::cout << " (" << w.property << ")";
    std::cout << ": invalid witness: " << *err << "\n";
  }
  size_t total = witnesses->size();
  std::cout << "racepredict: " << total - bad << " of " << total << " witness"
            << (total == 1 ? "" : "es") << " valid\n";
  return bad == 0 ? kExitClean : kExitFound;
}

} // namespace

void addCheckWitnessCommand(CLI::App &app, int &exitCode) {
  auto args = std::make_shared<CheckWitnessArgs>();
  auto *cmd = app.add_subcommand(
      "check-witness", "Replay the witnesses of a report (or one witness "
                       "file) on the trace semantics; exit 1 if any is "
                       "invalid");
  cmd->add_option("trace", args->trace, "The trace the report is about")
      ->required();
  cmd->add_option("witness", args->witness,
                  "A JSON report of `analyze` or a --witness-dir file")
      ->required();
  cmd->add_option("--property", args->properties,
                  "Property file: also check each violation's pattern on its "
                  "witness (may be repeated)");
  cmd->add_flag("--allow-truncated", args->allowTruncated,
                "Accept a binary trace that was cut (no END block), as "
                "`analyze --allow-truncated` does");
  cmd->callback([args, &exitCode]() { exitCode = runCheckWitness(*args); });
}

} // namespace racepredict::tool
