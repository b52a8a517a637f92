//===- tools/racepredict/cmd_analyze.cpp - `racepredict analyze TRACE` ----===//
#include "commands.h"

#include "racepredict/analysis/candidate_groups.h"
#include "racepredict/analysis/hb_races.h"
#include "racepredict/analysis/trace_index.h"
#include "racepredict/report/report.h"
#include "racepredict/solver/deadlock_predictor.h"
#include "racepredict/solver/race_predictor.h"
#include "racepredict/trace/trace_file.h"

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>

namespace racepredict::tool {
namespace {

struct AnalyzeArgs {
  std::string trace;
  bool races = false;
  bool deadlocks = false;
  bool hb = false;
  bool allPairs = false;
  std::string format = "text";
  unsigned timeoutMs = 0;
  uint64_t rlimit = 0;
  unsigned jobs = 1;
  std::string witnessDir;
  std::string output;
  std::string dumpSmt2;
  bool noFilters = false;
  bool noFastPath = false;
  bool allowTruncated = false;
  bool candidatesOnly = false;
  uint32_t window = 0;
  double budgetSeconds = 0;
  bool wholeTrace = false;
};

void writeWitnessFiles(const trace::Trace &t, const solver::RaceResult &r,
                       const AnalyzeArgs &a) {
  namespace fs = std::filesystem;
  fs::create_directories(a.witnessDir);
  for (const auto &f : r.races) {
    nlohmann::ordered_json steps = nlohmann::ordered_json::array();
    for (const auto &s : f.steps)
      steps.push_back({{"event", s.event}, {"half", s.half}});
    nlohmann::ordered_json j{{"tool", "racepredict"},
                             {"kind", "race"},
                             {"trace", a.trace},
                             {"first", report::eventJson(t, f.first)},
                             {"second", report::eventJson(t, f.second)},
                             {"witness", f.witness},
                             {"steps", steps}};
    std::string name = a.witnessDir + "/race-" + std::to_string(f.first) + "-" +
                       std::to_string(f.second) + ".json";
    std::ofstream(name) << j.dump(2) << "\n";
  }
}

int runAnalyze(const AnalyzeArgs &a) {
  trace::ReadOptions ro;
  ro.allowTruncated = a.allowTruncated;
  trace::ReadInfo info;
  auto loadStart = std::chrono::steady_clock::now();
  auto t = trace::readTraceFile(a.trace, ro, &info);
  double loadSeconds = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - loadStart)
                           .count();
  if (!t) {
    std::cerr << "racepredict: " << t.error().message << "\n";
    return kExitInput;
  }
  if (info.truncated)
    spdlog::warn("{} (analysing the events before the cut)", info.truncation);
  analysis::TraceIndex idx(*t);
  solver::RaceOptions opts;
  opts.allPairs = a.allPairs;
  opts.timeoutMs = a.timeoutMs;
  opts.rlimit = a.rlimit;
  opts.jobs = a.jobs;
  opts.noFilters = a.noFilters;
  opts.noFastPath = a.noFastPath;
  opts.dumpSmt2Dir = a.dumpSmt2;
  opts.candidatesOnly = a.candidatesOnly;
  opts.window = a.window;
  opts.budgetSeconds = a.budgetSeconds;
  opts.wholeTrace = a.wholeTrace;
  if (!a.dumpSmt2.empty())
    std::filesystem::create_directories(a.dumpSmt2);
  // Races unless only --deadlocks was asked for.
  bool doRaces = a.races || !a.deadlocks;
  solver::RaceResult r;
  if (doRaces)
    r = solver::predictRaces(idx, opts);
  solver::DeadlockResult d;
  if (a.deadlocks && !a.candidatesOnly) {
    solver::DeadlockOptions dopt;
    dopt.allCycles = a.allPairs;
    dopt.timeoutMs = a.timeoutMs;
    dopt.rlimit = a.rlimit;
    dopt.noFilters = a.noFilters;
    d = solver::predictDeadlocks(idx, dopt);
  }

  std::ofstream file;
  std::ostream *out = &std::cout;
  if (!a.output.empty()) {
    file.open(a.output);
    if (!file) {
      std::cerr << "racepredict: cannot write '" << a.output << "'\n";
      return kExitInput;
    }
    out = &file;
  }
  // --hb: pairs are counted, and listed one per source-location pair (all
  // of them with --all-pairs); "also predicted" compares groups, which is
  // what the default one-race-per-location-pair report can be compared on.
  analysis::HbSummary hbs;
  std::vector<std::pair<analysis::EventId, analysis::EventId>> hb;
  size_t hbAlsoPredicted = 0, hbGroupsAlsoPredicted = 0;
  if (a.hb) {
    hbs = analysis::hbSummary(idx);
    hb = a.allPairs ? analysis::hbRaces(idx) : hbs.groups;
    std::set<std::pair<analysis::EventId, analysis::EventId>> predicted;
    std::set<std::pair<uint64_t, uint64_t>> predictedGroups;
    auto group = [&](analysis::EventId x, analysis::EventId y) {
      uint64_t p = analysis::signatureKey(*t, x),
               q = analysis::signatureKey(*t, y);
      return std::make_pair(std::min(p, q), std::max(p, q));
    };
    for (const auto &f : r.races) {
      predicted.insert({f.first, f.second});
      predictedGroups.insert(group(f.first, f.second));
    }
    for (const auto &p : hb)
      hbAlsoPredicted += predicted.count(p);
    for (const auto &p : hbs.groups)
      hbGroupsAlsoPredicted += predictedGroups.count(group(p.first, p.second));
  }
  report::ReportContext ctx;
  ctx.tracePath = a.trace;
  if (a.format == "json") {
    auto j = report::raceReportJson(*t, r, ctx);
    j["stats"]["load_seconds"] = loadSeconds;
    if (a.deadlocks) {
      j["deadlocks"] = report::deadlocksJson(*t, d, idx);
      const auto &ds = d.stats;
      j["stats"]["deadlock"] = {{"nested_acquisitions", ds.cycles.edges},
                                {"lock_cycles", ds.candidates},
                                {"solver_calls", ds.solverCalls},
                                {"sat", ds.sat},
                                {"unsat", ds.unsat},
                                {"unknown", ds.unknown},
                                {"seconds", ds.seconds}};
      j["stats"]["unknown"] = r.stats.unknown + ds.unknown;
    }
    if (a.hb) {
      nlohmann::ordered_json pairs = nlohmann::ordered_json::array();
      for (const auto &p : hb)
        pairs.push_back({p.first, p.second});
      j["hb"] = {{"races", pairs},
                 {"count", hbs.pairs},
                 {"groups", hbs.groups.size()},
                 {"also_predicted", hbAlsoPredicted},
                 {"groups_also_predicted", hbGroupsAlsoPredicted}};
    }
    *out << j.dump(2) << "\n";
  } else if (a.format == "sarif") {
    *out << report::sarifReport(*t, r, a.deadlocks ? &d : nullptr, idx, ctx)
                .dump(2)
         << "\n";
  } else if (a.candidatesOnly) {
    const auto &s = r.stats;
    *out << "racepredict: " << s.events << " events, " << s.conflictingPairs
         << " conflicting pairs, " << s.filteredMhb
         << " ordered by must-happen-before, " << s.filteredLockset
         << " protected by a common lock, " << s.candidates
         << " candidates (not solved: --candidates-only)\n";
    return kExitClean;
  } else {
    if (doRaces)
      report::printRaceReport(*t, r, ctx, *out);
    if (a.deadlocks)
      report::printDeadlockReport(*t, d, idx, ctx, *out);
    if (a.hb)
      *out << "racepredict: --hb: a happens-before detector on the observed "
              "order finds "
           << hbs.pairs << " racing pair" << (hbs.pairs == 1 ? "" : "s")
           << " in " << hbs.groups.size() << " source-location pair"
           << (hbs.groups.size() == 1 ? "" : "s") << "; "
           << hbGroupsAlsoPredicted << " of these location pairs "
           << (hbGroupsAlsoPredicted == 1 ? "has" : "have")
           << " a predicted race above"
           << (a.allPairs ? ", " + std::to_string(hbAlsoPredicted) +
                                " of the pairs are among the " +
                                std::to_string(r.races.size()) + " predicted"
                          : std::string())
           << "\n";
  }
  if (!a.witnessDir.empty())
    writeWitnessFiles(*t, r, a);
  if (!r.races.empty() || !d.deadlocks.empty())
    return kExitFound;
  // A time-out is never "no bug": the run is inconclusive.
  return r.unknowns.empty() && d.unknowns.empty() ? kExitClean
                                                  : kExitInconclusive;
}

} // namespace

void addAnalyzeCommand(CLI::App &app, int &exitCode) {
  auto args = std::make_shared<AnalyzeArgs>();
  CLI::App *cmd = app.add_subcommand(
      "analyze", "Predict the data races the maximal causal model admits for "
                 "a recorded trace, each with a witness schedule");
  cmd->add_option("trace", args->trace, "Trace file (.rptrace or .rpt.txt)")
      ->required();
  cmd->add_flag("--races", args->races,
                "Predict data races (the default unless only --deadlocks)");
  cmd->add_flag("--deadlocks", args->deadlocks,
                "Predict lock-order deadlocks (cycles of any length)");
  cmd->add_flag("--hb", args->hb,
                "Also run a plain happens-before (vector clock) detector on "
                "the observed order, for side-by-side counts");
  cmd->add_flag("--all-pairs", args->allPairs,
                "Report every racing event pair, not one per pair of source "
                "locations");
  cmd->add_option("--format", args->format, "Report format")
      ->check(CLI::IsMember({"text", "json", "sarif"}));
  cmd->add_option("--timeout-ms", args->timeoutMs,
                  "Per-query solver time-out; a time-out counts as unknown");
  cmd->add_option("--rlimit", args->rlimit,
                  "Per-query machine-independent solver budget (Z3 rlimit)");
  cmd->add_option("-j,--jobs", args->jobs,
                  "Solver threads (output is the same for every value)")
      ->check(CLI::Range(1u, 256u));
  cmd->add_option("--witness-dir", args->witnessDir,
                  "Write each witness schedule as JSON into this directory");
  cmd->add_option("-o,--output", args->output, "Write the report here");
  cmd->add_option("--dump-smt2", args->dumpSmt2,
                  "Write every solver query as an .smt2 file here");
  cmd->add_flag("--no-filters", args->noFilters,
                "Send every conflicting pair to the solver (no lockset or "
                "must-happen-before pre-filtering)");
  cmd->add_flag("--no-fast-path", args->noFastPath,
                "Decide every candidate with the solver (no observed-order "
                "closure witnesses)");
  cmd->add_flag("--candidates-only", args->candidatesOnly,
                "Stop after the filters and print the candidate counts");
  cmd->add_flag("--allow-truncated", args->allowTruncated,
                "Analyse a cut binary trace up to the cut");
  cmd->add_option("--window", args->window,
                  "RVPredict-style fixed windows of N events, for comparison: "
                  "loses every race across two windows");
  cmd->add_option("--budget-s", args->budgetSeconds,
                  "Solving budget for the whole trace in seconds; candidates "
                  "left are unknown, never \"no race\"")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--whole-trace", args->wholeTrace,
                "Decide candidates on one whole-trace formula instead of "
                "per-candidate slices (slow; for comparison)");
  cmd->callback([args, &exitCode]() { exitCode = runAnalyze(*args); });
}

} // namespace racepredict::tool
