//===- tools/racepredict/cmd_analyze.cpp - `racepredict analyze TRACE` ----===//
#include "analysis_pipeline.h"
#include "commands.h"
#include "pipeline_stats.h"

#include "racepredict/analysis/candidate_groups.h"
#include "racepredict/analysis/hb_races.h"
#include "racepredict/analysis/trace_index.h"
#include "racepredict/report/html_report.h"
#include "racepredict/report/recording_stop_report.h"
#include "racepredict/report/report.h"
#include "racepredict/report/sarif_report.h"
#include "racepredict/report/streamed_report.h"
#include "racepredict/report/violation_report.h"
#include "racepredict/report/witness_file.h"
#include "racepredict/support/file_io.h"

#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>
#include <set>

namespace racepredict::tool {
namespace {

struct AnalyzeArgs {
  AnalysisOptions analysis;
  bool hb = false;
  bool fullWitness = false;
  std::string format = "text";
  std::string witnessDir;
  std::string output;
};

int runAnalyze(const AnalyzeArgs &a) {
  AnalysisOptions o = a.analysis;
  if (a.hb) // --hb lists the whole trace's happens-before races
    o.streamingLoad = -1;
  auto res = runAnalysis(o);
  if (!res) {
    std::cerr << "racepredict: " << res.error().message << "\n";
    return res.error().resource ? kExitInconclusive : kExitInput;
  }
  const trace::Trace *t = res->trace.get();
  // The whole trace's index only where a report needs it (deadlocks, --hb);
  // races are reported without it.
  const analysis::TraceIndex *idx =
      a.hb || o.deadlocks ? &res->fullIndex() : nullptr;
  const solver::RaceResult &r = res->races;
  const solver::DeadlockResult &d = res->deadlocks;
  const std::vector<property::Property> &props = res->properties;
  const solver::PropertyResult &pr = res->violations;
  bool doRaces = o.doRaces();
  double loadSeconds = res->loadSeconds;
  if (res->suppressed)
    std::cerr << "racepredict: " << res->suppressed << " finding"
              << (res->suppressed == 1 ? "" : "s") << " suppressed by "
              << o.suppressions << "\n";

  auto outFile = OutputFile::open(a.output.empty() ? "-" : a.output, "report");
  if (!outFile) {
    std::cerr << "racepredict: " << outFile.error().message << "\n";
    return kExitInput;
  }
  std::ostream *out = &outFile->stream();
  // --hb: pairs are counted, and listed one per source-location pair (all
  // of them with --all-pairs); "also predicted" compares groups, which is
  // what the default one-race-per-location-pair report can be compared on.
  analysis::HbSummary hbs;
  std::vector<std::pair<analysis::EventId, analysis::EventId>> hb;
  size_t hbAlsoPredicted = 0, hbGroupsAlsoPredicted = 0;
  if (a.hb) {
    hbs = analysis::hbSummary(*idx);
    hb = o.allPairs ? analysis::hbRaces(*idx) : hbs.groups;
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
  ctx.tracePath = o.trace;
  ctx.fullWitness = a.fullWitness;
  if (a.format == "json") {
    // The findings are streamed (report/streamed_report.h): the document
    // holds everything else.
    auto j = report::raceReportJson(*t, r, ctx, /*findings=*/false);
    report::StreamedFindings findings;
    findings.races = &r;
    report::addRecordingStopJson(*t, j);
    j["stats"]["load_seconds"] = loadSeconds;
    j["stats"]["suppressed"] = res->suppressed;
    j["stats"].update(pipelineStatsJson(*res));
    if (o.deadlocks) {
      findings.deadlocks = &d;
      const auto &ds = d.stats;
      j["stats"]["deadlock"] = {{"blocking_events", ds.search.blockingEvents},
                                {"candidates", ds.candidates},
                                {"lock_cycles", ds.search.lockCycles},
                                {"ownership_candidates", ds.search.ownership},
                                {"hang_candidates", ds.search.hangs},
                                {"ownership_sets", ds.search.ownershipSets},
                                {"search_steps", ds.search.searchSteps},
                                {"search_truncated", ds.search.truncated},
                                {"solver_calls", ds.solverCalls},
                                {"sliced_calls", ds.slicedCalls},
                                {"slice_units", ds.sliceUnits},
                                {"slice_expansions", ds.sliceExpansions},
                                {"sat", ds.sat},
                                {"unsat", ds.unsat},
                                {"unknown", ds.unknown},
                                {"seconds", ds.seconds}};
      j["stats"]["unknown"] = r.stats.unknown + ds.unknown;
    }
    if (!props.empty()) {
      findings.violations = &pr;
      findings.properties = &props;
      for (auto &u : report::unknownViolationsJson(pr, props))
        j["unknown"].push_back(u);
      const auto &ps = pr.stats;
      j["stats"]["property"] = {{"properties", ps.properties},
                                {"patterns", ps.patterns},
                                {"tuples", ps.tuples},
                                {"pruned_order", ps.prunedOrder},
                                {"pruned_gap", ps.prunedGap},
                                {"candidates", ps.candidates},
                                {"observed", ps.observed},
                                {"solver_calls", ps.solverCalls},
                                {"sat", ps.sat},
                                {"unsat", ps.unsat},
                                {"unknown", ps.unknown},
                                {"seconds", ps.seconds}};
      j["stats"]["unknown"] =
          j["stats"]["unknown"].get<size_t>() + pr.unknowns.size();
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
    report::writeStreamedReport(*out, *t, j, findings);
  } else if (a.format == "sarif") {
    report::writeSarifReport(*out, *t, r, o.deadlocks ? &d : nullptr,
                             props.empty() ? nullptr : &pr, &props, ctx);
  } else if (a.format == "html") {
    report::writeHtmlReport(
        *t, report::htmlFindings(*t, r, o.deadlocks ? &d : nullptr), ctx, *out);
  } else if (o.candidatesOnly) {
    const auto &s = r.stats;
    *out << "racepredict: " << s.events << " events, " << s.conflictingPairs
         << " conflicting pairs, " << s.filteredMhb
         << " ordered by must-happen-before, " << s.filteredLockset
         << " protected by a common lock, " << s.candidates
         << " candidates (not solved: --candidates-only)\n";
    return finishOutput(*outFile, kExitClean);
  } else {
    report::printRecordingStop(*t, *out);
    if (doRaces)
      report::printRaceReport(*t, r, ctx, *out);
    if (o.deadlocks)
      report::printDeadlockReport(*t, d, *idx, ctx, *out);
    if (!props.empty())
      report::printViolationReport(*t, pr, props, ctx, *out);
    if (a.hb)
      *out << "racepredict: --hb: a happens-before detector on the observed "
              "order finds "
           << hbs.pairs << " racing pair" << (hbs.pairs == 1 ? "" : "s")
           << " in " << hbs.groups.size() << " source-location pair"
           << (hbs.groups.size() == 1 ? "" : "s") << "; "
           << hbGroupsAlsoPredicted << " of these location pairs "
           << (hbGroupsAlsoPredicted == 1 ? "has" : "have")
           << " a predicted race above"
           << (o.allPairs ? ", " + std::to_string(hbAlsoPredicted) +
                                " of the pairs are among the " +
                                std::to_string(r.races.size()) + " predicted"
                          : std::string())
           << "\n";
  }
  if (!a.witnessDir.empty()) {
    auto w = report::writeWitnessFiles(
        a.witnessDir, *t, r, o.deadlocks ? &d : nullptr, idx, o.trace);
    if (!w) {
      std::cerr << "racepredict: " << w.error().message << "\n";
      return kExitInput;
    }
    std::string err;
    if (!report::writeViolationWitnessFiles(a.witnessDir, *t, pr, props,
                                            o.trace, &err)) {
      std::cerr << "racepredict: " << err << "\n";
      return kExitInput;
    }
  }
  if (!r.races.empty() || !d.deadlocks.empty() || !pr.violations.empty() ||
      report::observedDeadlock(*t))
    return finishOutput(*outFile, kExitFound);
  // A time-out is never "no bug": the run is inconclusive.
  return finishOutput(*outFile, r.unknowns.empty() && d.unknowns.empty() &&
                                        pr.unknowns.empty()
                                    ? kExitClean
                                    : kExitInconclusive);
}

} // namespace

void addAnalyzeCommand(CLI::App &app, int &exitCode) {
  auto args = std::make_shared<AnalyzeArgs>();
  CLI::App *cmd = app.add_subcommand(
      "analyze", "Predict the data races the maximal causal model admits for "
                 "a recorded trace, each with a witness schedule");
  cmd->add_option("trace", args->analysis.trace,
                  "Trace file (.rptrace or .rpt.txt)")
      ->required();
  addAnalysisFlags(cmd, args->analysis);
  cmd->add_flag("--hb", args->hb,
                "Also run a plain happens-before (vector clock) detector on "
                "the observed order, for side-by-side counts");
  cmd->add_option("--format", args->format, "Report format")
      ->check(CLI::IsMember({"text", "json", "sarif", "html"}));
  cmd->add_option("--witness-dir", args->witnessDir,
                  "Write each witness schedule as JSON into this directory");
  cmd->add_option("-o,--output", args->output, "Write the report here");
  cmd->add_flag("--full-witness", args->fullWitness,
                "Text report: every witness step, not the condensed witness");
  cmd->callback([args, &exitCode]() { exitCode = runAnalyze(*args); });
}

} // namespace racepredict::tool
