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
#include "racepredict/analysis/deadlock.h"
#include "racepredict/analysis/schedule_checker.h"
#include "racepredict/property/parser.h"
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
  std::vector<std::string> properties; ///< for violations' patterns
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

/// Checks one deadlock entry ({"blocked": [{"event", "half_done"}...],
/// "witness": [...]}, and "steps" in --witness-dir files): after the
/// schedule, the named threads must be blocked for good (docs/semantics.md,
/// "Deadlocks"). Returns an error sentence or "".
std::string checkDeadlock(const analysis::TraceIndex &idx,
                          const nlohmann::json &d) {
  const auto &events = idx.trace().events;
  std::vector<analysis::EventId> blocked;
  std::vector<analysis::Step> halves;
  for (const auto &b : d.at("blocked")) {
    auto e = b.at("event").get<analysis::EventId>();
    if (e >= events.size())
      return "blocked event " + std::to_string(e) + " out of range";
    blocked.push_back(e);
    trace::EventKind k = events[e].kind;
    bool twoHalves =
        k == trace::EventKind::Wait || k == trace::EventKind::Barrier;
    if (b.value("half_done", twoHalves))
      halves.push_back({e, true});
  }
  std::vector<analysis::Step> steps;
  if (d.contains("steps")) {
    for (const auto &s : d["steps"])
      steps.push_back(
          {s.at("event").get<analysis::EventId>(), s.value("half", false)});
  } else {
    auto w = d.at("witness").get<std::vector<analysis::EventId>>();
    auto expanded = analysis::expandWitness(idx, w);
    if (!expanded) {
      std::vector<analysis::Step> plain;
      for (auto e : w)
        plain.push_back({e, false});
      auto why = analysis::checkPrefixSchedule(idx, plain);
      return why ? *why : "no placement of wait/barrier halves makes it valid";
    }
    steps = *expanded;
    // A blocked wait or barrier has done its first half (the report's
    // witness lists events only).
    steps.insert(steps.end(), halves.begin(), halves.end());
  }
  auto why = analysis::checkDeadlockWitness(idx, steps, blocked);
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
  std::vector<property::Property> props;
  for (const std::string &file : args.properties) {
    auto ps = property::parsePropertyFile(file);
    if (!ps) {
      std::cerr << "racepredict: " << ps.error().message << "\n";
      return kExitInput;
    }
    props.insert(props.end(), ps->begin(), ps->end());
  }
  // A report has "races" (and maybe "deadlocks", "violations"); a
  // --witness-dir file is one race, deadlock or violation ("kind").
  std::vector<nlohmann::json> races, deadlocks, violations;
  if (j.contains("races") || j.contains("deadlocks") ||
      j.contains("violations")) {
    if (j.contains("races"))
      races = j["races"].get<std::vector<nlohmann::json>>();
    if (j.contains("deadlocks"))
      deadlocks = j["deadlocks"].get<std::vector<nlohmann::json>>();
    if (j.contains("violations"))
      violations = j["violations"].get<std::vector<nlohmann::json>>();
  } else if (j.value("kind", "") == "deadlock") {
    deadlocks.push_back(j);
  } else if (j.value("kind", "") == "violation") {
    violations.push_back(j);
  } else {
    races.push_back(j);
  }
  analysis::TraceIndex idx(*t);
  size_t bad = 0;
  for (size_t i = 0; i < races.size() + deadlocks.size(); ++i) {
    bool isRace = i < races.size();
    size_t k = isRace ? i : i - races.size();
    const char *what = isRace ? "race" : "deadlock";
    std::string err;
    try {
      err =
          isRace ? checkRace(idx, races[k]) : checkDeadlock(idx, deadlocks[k]);
    } catch (const nlohmann::json::exception &e) {
      std::cerr << "racepredict: " << args.witness << ": " << what << " " << k
                << ": malformed entry: " << e.what() << "\n";
      return kExitInput;
    }
    if (err.empty())
      continue;
    ++bad;
    std::cout << args.witness << ": " << what << " " << k;
    if (isRace)
      std::cout << " (" << races[k]["first"]["event"] << ", "
                << races[k]["second"]["event"] << ")";
    std::cout << ": invalid witness: " << err << "\n";
  }
  for (size_t i = 0; i < violations.size(); ++i) {
    std::string err;
    try {
      err = checkViolation(idx, violations[i], props);
    } catch (const nlohmann::json::exception &e) {
      std::cerr << "racepredict: " << args.witness << ": violation " << i
                << ": malformed entry: " << e.what() << "\n";
      return kExitInput;
    }
    if (!err.empty()) {
      ++bad;
      std::cout << args.witness << ": violation " << i << " ("
                << violations[i].value("property", "?")
                << "): invalid witness: " << err << "\n";
    }
  }
  size_t total = races.size() + deadlocks.size() + violations.size();
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
  cmd->callback([args, &exitCode]() { exitCode = runCheckWitness(*args); });
}

} // namespace racepredict::tool
