//===- tools/racepredict/cmd_check_witness.cpp - Re-validate witnesses ----===//
//
// `racepredict check-witness TRACE FILE.json` replays every witness of a
// report (or one witness file from --witness-dir) against the trace
// semantics of docs/semantics.md, independently of the solver that found
// it: for bug reports that carry a witness, and for the test suite, which
// runs it on every report it produces.
//
#include "commands.h"

#include "racepredict/analysis/schedule_checker.h"
#include "racepredict/trace/trace_file.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <memory>

namespace racepredict::tool {
namespace {

struct CheckWitnessArgs {
  std::string trace;
  std::string witness;
};

/// Checks one race entry ({"first": {"event"}, "second": {"event"},
/// "witness": [...]}); returns an error sentence or "".
std::string checkRace(const analysis::TraceIndex &idx,
                      const nlohmann::json &race) {
  auto a = race.at("first").at("event").get<analysis::EventId>();
  auto b = race.at("second").at("event").get<analysis::EventId>();
  auto w = race.at("witness").get<std::vector<analysis::EventId>>();
  if (w.size() < 2 || w[w.size() - 2] != a || w.back() != b)
    return "the witness does not end with the racing pair";
  w.resize(w.size() - 2);
  auto steps = analysis::expandWitness(idx, w);
  if (!steps) {
    // Report the first bad step of the schedule without halves placed.
    std::vector<analysis::Step> plain;
    for (auto e : w)
      plain.push_back({e, false});
    auto why = analysis::checkPrefixSchedule(idx, plain);
    return why ? *why : "no placement of wait/barrier halves makes it valid";
  }
  auto why = analysis::checkRaceWitness(idx, *steps, a, b);
  return why ? *why : "";
}

int runCheckWitness(const CheckWitnessArgs &args) {
  auto t = trace::readTraceFile(args.trace);
  if (!t) {
    std::cerr << "racepredict: " << t.error().message << "\n";
    return kExitInput;
  }
  std::ifstream in(args.witness);
  if (!in) {
    std::cerr << "racepredict: cannot open witness '" << args.witness << "'\n";
    return kExitInput;
  }
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    std::cerr << "racepredict: " << args.witness << ": not a JSON object\n";
    return kExitInput;
  }
  std::vector<nlohmann::json> races;
  if (j.contains("races"))
    races = j["races"].get<std::vector<nlohmann::json>>();
  else
    races.push_back(j);
  analysis::TraceIndex idx(*t);
  size_t bad = 0;
  for (size_t i = 0; i < races.size(); ++i) {
    std::string err;
    try {
      err = checkRace(idx, races[i]);
    } catch (const nlohmann::json::exception &e) {
      std::cerr << "racepredict: " << args.witness << ": race " << i
                << ": malformed entry: " << e.what() << "\n";
      return kExitInput;
    }
    if (!err.empty()) {
      ++bad;
      std::cout << args.witness << ": race " << i << " ("
                << races[i]["first"]["event"] << ", "
                << races[i]["second"]["event"] << "): invalid witness: " << err
                << "\n";
    }
  }
  std::cout << "racepredict: " << races.size() - bad << " of " << races.size()
            << " witness" << (races.size() == 1 ? "" : "es") << " valid\n";
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
  cmd->callback([args, &exitCode]() { exitCode = runCheckWitness(*args); });
}

} // namespace racepredict::tool
