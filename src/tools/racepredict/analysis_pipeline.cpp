//===- tools/racepredict/analysis_pipeline.cpp - Load, index, predict -----===//
#include "analysis_pipeline.h"

#include "racepredict/analysis/access_pieces.h"
#include "racepredict/analysis/mhb.h"
#include "racepredict/analysis/reduced_witness.h"
#include "racepredict/analysis/streaming_reduction.h"
#include "racepredict/batch/progress.h"
#include "racepredict/property/parser.h"
#include "racepredict/report/race_groups.h"
#include "racepredict/report/suppressions.h"
#include "racepredict/solver/piece_races.h"
#include "racepredict/support/memory.h"
#include "racepredict/trace/binary_format.h"
#include "racepredict/trace/validate.h"

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <thread>

namespace racepredict::tool {

namespace {

/// What indexing costs beyond the events themselves: about 23 bytes per
/// event (55 with the 32-byte event records, README "Long traces").
constexpr uint64_t kIndexBytesPerEvent = 23;
/// Issue 17: an analysis longer than a few seconds says how far it is, on
/// one redrawn line of stderr (batch/progress.h). On a terminal it appears
/// after 2 s, so that quick analyses print nothing; --progress draws it
/// from the start, also into a log.
class ProgressLine {
public:
  ProgressLine(int flag, const char *what)
      : line_(flag > 0 || (flag == 0 && batch::Progress::stderrIsTerminal()), 0,
              stderr,
              [forced = flag > 0, what](size_t done, size_t total,
                                        size_t unknown,
                                        double elapsed) -> std::string {
                if (!forced && elapsed < 2)
                  return "";
                long s = static_cast<long>(elapsed);
                char buf[200];
                std::snprintf(buf, sizeof buf,
                              "racepredict analyze: %s: %zu/%zu candidates "
                              "decided, %zu unknown, %ld:%02ld elapsed",
                              what, done, total, unknown, s / 60, s % 60);
                return buf;
              }) {}
  ~ProgressLine() { line_.finish(); }
  solver::ProgressCallback callback() {
    return [this](const solver::DecisionProgress &p) {
      line_.set(p.decided, p.unknown, p.total);
    };
  }

private:
  batch::Progress line_;
};

/// Findings on the reduced trace as findings on the original one: event ids
/// through `red.original`, witnesses with the dropped events put back (from
/// the whole trace's index, built at the first race).
void mapToOriginal(AnalysisResult &res, const analysis::LocalReduction &red) {
  solver::RaceResult &r = res.races;
  std::vector<analysis::WitnessSchedule *> witnesses;
  for (solver::RaceFinding &f : r.races) {
    f.first = red.original[f.first];
    f.second = red.original[f.second];
    witnesses.push_back(&f.schedule);
  }
  if (!witnesses.empty())
    analysis::expandSchedules(res.fullIndex(), red, witnesses, 2);
  for (solver::UnknownPair &u : r.unknowns) {
    u.first = red.original[u.first];
    u.second = red.original[u.second];
  }
  r.stats.events = red.stats.events;
}

solver::RaceOptions raceOptions(const AnalysisOptions &o) {
  solver::RaceOptions opts;
  opts.allPairs = o.allPairs;
  opts.timeoutMs = o.timeoutMs;
  opts.rlimit = o.rlimit;
  opts.jobs = solverJobs(o);
  opts.noFilters = o.noFilters;
  opts.noFastPath = o.noFastPath;
  opts.dumpSmt2Dir = o.dumpSmt2;
  opts.candidatesOnly = o.candidatesOnly;
  opts.window = o.window;
  opts.budgetSeconds = o.budgetSeconds;
  opts.wholeTrace = o.wholeTrace;
  return opts;
}

/// The message of a trace that is not a consistent run (validateTrace).
Error inconsistent(const trace::Trace &t, const trace::Violation &v,
                   const std::string &path,
                   const std::vector<uint32_t> &lines) {
  return Error{trace::violationText(t, v, path, lines) +
               (v.structural
                    ? ": the trace describes no run, it cannot be analysed"
                    : ": the trace is not a sequentially consistent run "
                      "(`racepredict check-trace` lists every inconsistency; "
                      "--allow-inconsistent analyses it anyway)")};
}

/// Whether `o` is answered by a streaming load (AnalysisOptions::
/// streamingLoad): races alone, reduced, of a whole binary trace.
bool wantsStreamingLoad(const AnalysisOptions &o) {
  if (!o.doRaces() || o.doDeadlocks() || !o.properties.empty() ||
      o.noLocalReduction || o.window || o.allowInconsistent ||
      o.allowTruncated || o.streamingLoad < 0)
    return false;
  if (o.streamingLoad > 0)
    return true;
  std::error_code ec;
  uint64_t size = std::filesystem::file_size(o.trace, ec);
  if (ec || size < kStreamingLoadBytes)
    return false;
  // A binary trace of the recorder's layout (v4 and later: format.h), by
  // its header; anything else goes the whole-trace way without a word.
  std::ifstream in(o.trace, std::ios::binary);
  std::optional<unsigned> version = trace::binaryTraceVersion(in);
  return version && *version >= 4;
}

/// Races of o.trace by a streaming load (analysis/streaming_reduction.h):
/// false when the file cannot be read so, or its reduced trace is not a
/// consistent run (the whole-trace path then says why). With findings, the
/// whole trace is read for them (witnesses put back the dropped events).
Expected<bool> streamingRaces(const AnalysisOptions &o, AnalysisResult &res) {
  setActivity("reading " + o.trace + " a few threads at a time");
  std::string why;
  std::optional<analysis::LocalReduction> red =
      analysis::reduceWhileLoading(o.trace, 16, &why, &res.streaming);
  res.loadSeconds = res.endStage("load");
  if (!red) {
    spdlog::info("{}: not loaded by streaming ({}); reading it whole", o.trace,
                 why);
    res.streaming = {};
    return false;
  }
  if (!trace::validateTrace(red->trace, 1, false).empty()) {
    spdlog::info("{}: its reduced trace is not a consistent run; reading it "
                 "whole",
                 o.trace);
    res.streaming = {};
    return false;
  }
  res.endStage("validate");
  const std::string &what = res.what =
      o.trace + " (" + std::to_string(red->stats.events) + " events, " +
      std::to_string(red->trace.numThreads()) + " threads)";
  res.reduction = red->stats;
  solver::RaceOptions opts = raceOptions(o);
  {
    setActivity("predicting the races of " + what);
    ProgressLine progress(o.progress, "races");
    opts.onProgress = progress.callback();
    bool split = !analysis::overlappingLocations(red->trace).empty();
    res.races = solver::predictRacesInPiecesLending(red->trace, split, opts);
  }
  res.endStage("races");
  res.races.stats.events = red->stats.events;
  if (res.races.races.empty() && res.races.unknowns.empty()) {
    res.trace = std::make_unique<trace::Trace>(std::move(red->trace));
    res.streamed = true;
    return true;
  }
  // Findings name the whole trace's events, and their witnesses need its
  // dropped events back.
  red->trace = trace::Trace();
  setActivity("reading " + o.trace + " for its findings");
  auto t = trace::readTraceFile(o.trace, {}, &res.readInfo);
  res.endStage("reload");
  if (!t)
    return t.error();
  if (auto bad = trace::validateTrace(*t, 1, false); !bad.empty())
    return inconsistent(*t, bad[0], o.trace, res.readInfo.eventLines);
  res.trace = std::make_unique<trace::Trace>(std::move(*t));
  mapToOriginal(res, *red);
  return true;
}

/// The whole trace read, validated and indexed (or reduced) as needed, and
/// the races, deadlocks and property violations `o` asks for.
Expected<bool> wholeTraceAnalysis(const AnalysisOptions &o,
                                  AnalysisResult &res) {
  auto stage = [&](const char *name) { return res.endStage(name); };
  trace::ReadOptions ro;
  ro.allowTruncated = o.allowTruncated;
  setActivity("reading " + o.trace);
  auto t = trace::readTraceFile(o.trace, ro, &res.readInfo);
  res.loadSeconds = stage("load");
  if (!t)
    return t.error();
  if (res.readInfo.truncated)
    spdlog::warn("{} (analysing the events before the cut)",
                 res.readInfo.truncation);
  // The model (docs/semantics.md) is one of the runs the trace describes:
  // an inconsistent trace is an input error, not a source of findings.
  auto bad = trace::validateTrace(*t, 1, o.allowInconsistent);
  stage("validate");
  if (!bad.empty())
    return inconsistent(*t, bad[0], o.trace, res.readInfo.eventLines);
  const std::string &what = res.what =
      o.trace + " (" + std::to_string(t->events.size()) + " events, " +
      std::to_string(t->numThreads()) + " threads)";
  // Said before the analysis starts, not as an allocation failure hours
  // later. An estimate, biased to let through what might fit (the resident
  // size undercounts the address space a limit counts).
  if (auto why = memoryShortfall(t->events.size() * kIndexBytesPerEvent,
                                 peakResidentBytes(), memoryLimitBytes()))
    return Error{"not enough memory to index " + what + ": " + *why +
                     " (give it more, or record fewer events: "
                     "RACEPREDICT_OPTIONS max_events=N)",
                 true};
  res.trace = std::make_unique<trace::Trace>(std::move(*t));
  solver::RaceOptions opts = raceOptions(o);
  // Races are decided on the trace without its thread-local accesses
  // (docs/thread_local.md): the same verdicts, on what programs share. Not
  // with --window (its windows count events) nor on an inconsistent trace
  // (the reduction needs every read to see its thread's last write).
  bool reduce =
      o.doRaces() && !o.noLocalReduction && !o.window && !o.allowInconsistent;
  // Accesses of different sizes to the same bytes: races are decided on
  // their pieces, and named by the accesses (analysis/access_pieces.h).
  // The reduction keeps them all, and its trace is split.
  std::vector<bool> overlapping;
  if (o.doRaces() && !o.window)
    overlapping = analysis::overlappingLocations(*res.trace);
  if (reduce) {
    setActivity("leaving out the thread-local accesses of " + what);
    // The whole trace lends its tables (names...) to the reduced one until
    // the races are decided: nothing reads it meanwhile.
    analysis::LocalReduction red = analysis::reduceThreadLocalLending(
        *res.trace, 16, overlapping.empty() ? nullptr : &overlapping);
    res.reduction = red.stats;
    stage("reduce");
    {
      setActivity("predicting the races of " + what);
      ProgressLine progress(o.progress, "races");
      opts.onProgress = progress.callback();
      res.races = solver::predictRacesInPiecesLending(
          red.trace, !overlapping.empty(), opts);
    }
    stage("races");
    analysis::giveBackTables(red, *res.trace);
    // Only witnesses need the whole trace's index (to put back each
    // thread's dropped events): with no race it is not built here.
    red.trace = trace::Trace(); // what the full index needs the room for
    mapToOriginal(res, red);
  } else {
    res.fullIndex();
  }
  // Races without the reduction and deadlocks are predicted on the same
  // index: one must-happen-before order for both.
  std::optional<analysis::MustHappenBefore> order;
  if (o.doRaces() && !reduce && o.doDeadlocks() && overlapping.empty())
    opts.order = &order.emplace(*res.index);
  if (o.doRaces() && !reduce) {
    setActivity("predicting the races of " + what);
    ProgressLine progress(o.progress, "races");
    opts.onProgress = progress.callback();
    res.races = overlapping.empty()
                    ? solver::predictRaces(*res.index, opts)
                    : solver::predictRacesInPieces(*res.trace, opts);
    stage("races");
  }
  if (o.doDeadlocks()) {
    setActivity("predicting the deadlocks of " + what);
    solver::DeadlockOptions dopt;
    dopt.allCycles = o.allPairs;
    dopt.timeoutMs = o.timeoutMs;
    dopt.rlimit = o.rlimit;
    dopt.budgetSeconds = o.budgetSeconds;
    dopt.noFilters = o.noFilters;
    dopt.dumpSmt2Dir = o.dumpSmt2;
    dopt.wholeTrace = o.wholeTrace;
    dopt.order = opts.order;
    ProgressLine progress(o.progress, "deadlocks");
    dopt.onProgress = progress.callback();
    res.deadlocks = solver::predictDeadlocks(res.fullIndex(), dopt);
  }
  if (!res.properties.empty() && !o.candidatesOnly) {
    solver::PropertyOptions popt;
    popt.allInstances = o.allPairs;
    popt.timeoutMs = o.timeoutMs;
    popt.rlimit = o.rlimit;
    popt.noFilters = o.noFilters;
    popt.dumpSmt2Dir = o.dumpSmt2;
    setActivity("predicting the property violations of " + what);
    res.violations =
        solver::predictViolations(res.fullIndex(), res.properties, popt);
    for (const std::string &w : res.violations.warnings)
      std::cerr << "racepredict: warning: " << w << "\n";
  }
  return true;
}

} // namespace

const analysis::TraceIndex &AnalysisResult::fullIndex() {
  if (!index) {
    setActivity("indexing " + what);
    stageStart = std::chrono::steady_clock::now();
    index = std::make_unique<analysis::TraceIndex>(*trace);
    endStage("index");
  }
  return *index;
}

double AnalysisResult::endStage(const char *name) {
  auto now = std::chrono::steady_clock::now();
  stages.push_back({name,
                    std::chrono::duration<double>(now - stageStart).count(),
                    peakResidentBytes()});
  stageStart = now;
  return stages.back().seconds;
}

unsigned solverJobs(const AnalysisOptions &o) {
  if (o.jobs)
    return o.jobs;
  return std::clamp(std::thread::hardware_concurrency(), 1u, kMaxDefaultJobs);
}

void addAnalysisFlags(CLI::App *cmd, AnalysisOptions &o) {
  cmd->add_flag("--races", o.races,
                "Predict data races (the default unless only --deadlocks)");
  cmd->add_flag("--deadlocks", o.deadlocks,
                "Predict deadlocks: lock cycles of any length, joins, "
                "semaphores, barriers, condition waits");
  cmd->add_option("--property", o.properties,
                  "Predict violations of the custom properties in this file "
                  "(docs/properties.md); may be repeated")
      ->allow_extra_args(false);
  cmd->add_flag("--all-pairs", o.allPairs,
                "Report every racing event pair, not one per pair of source "
                "locations");
  cmd->add_option("--timeout-ms", o.timeoutMs,
                  "Per-query solver time-out; a time-out counts as unknown");
  cmd->add_option("--rlimit", o.rlimit,
                  "Per-query machine-independent solver budget (Z3 rlimit)");
  cmd->add_option("-j,--jobs", o.jobs,
                  "Solver threads (default: every core, at most 8; the output "
                  "is the same for every value)")
      ->check(CLI::Range(1u, 256u));
  cmd->add_option("--dump-smt2", o.dumpSmt2,
                  "Write every solver query as an .smt2 file here");
  cmd->add_flag("--no-filters", o.noFilters,
                "Send every conflicting pair to the solver (no lockset or "
                "must-happen-before pre-filtering)");
  cmd->add_flag("--no-fast-path", o.noFastPath,
                "Decide every candidate with the solver (no observed-order "
                "closure witnesses)");
  cmd->add_flag("--candidates-only", o.candidatesOnly,
                "Stop after the filters and print the candidate counts");
  cmd->add_flag("--allow-truncated", o.allowTruncated,
                "Analyse a cut binary trace up to the cut");
  cmd->add_flag("--allow-inconsistent", o.allowInconsistent,
                "Analyse a trace whose reads, locks or semaphores contradict "
                "its observed order (check-trace lists how); one that "
                "describes no run at all is still refused");
  cmd->add_option("--window", o.window,
                  "RVPredict-style fixed windows of N events, for comparison: "
                  "loses every race across two windows");
  cmd->add_option("--budget-s", o.budgetSeconds,
                  "Solving budget for the whole trace in seconds; candidates "
                  "left are unknown, never \"no race\"")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--whole-trace", o.wholeTrace,
                "Decide race and deadlock candidates on one whole-trace "
                "formula instead of per-candidate slices (slow; for "
                "comparison)");
  cmd->add_flag("--no-local-reduction", o.noLocalReduction,
                "Decide races on every event, not on the trace without the "
                "accesses of locations one thread alone touches (same "
                "verdicts; for comparison)");
  cmd->add_flag("--streaming-load,!--no-streaming-load", o.streamingLoad,
                "Reduce a binary trace while loading it, a few threads at a "
                "time, instead of holding it whole (default: from 256 MB on, "
                "when only races are predicted)");
  cmd->add_flag("--progress,!--no-progress", o.progress,
                "Progress line on stderr: candidates decided / total, unknown, "
                "elapsed (default: on a terminal, after 2 s)");
  cmd->add_option("--suppressions", o.suppressions,
                  "Drop findings matched by TSan-style rules (race:PATTERN, "
                  "deadlock:PATTERN, property:NAME)");
}

Expected<AnalysisResult> runAnalysis(const AnalysisOptions &o) {
  AnalysisResult res;
  // The suppressions first: a bad file must not cost a whole analysis.
  report::Suppressions supp;
  if (!o.suppressions.empty()) {
    auto s = report::Suppressions::load(o.suppressions);
    if (!s)
      return s.error();
    for (const std::string &w : s->warnings())
      std::cerr << "racepredict: " << w << "\n";
    supp = std::move(*s);
  }
  if (!o.dumpSmt2.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.dumpSmt2, ec);
    if (ec || !std::filesystem::is_directory(o.dumpSmt2))
      return Error{"cannot create the --dump-smt2 directory '" + o.dumpSmt2 +
                   "'" + (ec ? ": " + ec.message() : std::string())};
  }
  // Custom properties (docs/properties.md): parse errors are input errors.
  for (const std::string &file : o.properties) {
    auto ps = property::parsePropertyFile(file);
    if (!ps)
      return ps.error();
    res.properties.insert(res.properties.end(), ps->begin(), ps->end());
  }
  res.stageStart = std::chrono::steady_clock::now();
  bool streamed = false;
  if (wantsStreamingLoad(o)) {
    auto done = streamingRaces(o, res);
    if (!done)
      return done.error();
    streamed = *done;
  }
  if (!streamed) {
    auto done = wholeTraceAnalysis(o, res);
    if (!done)
      return done.error();
  }
  if (o.doRaces() && !o.allPairs)
    report::oneRacePerLocationPair(*res.trace, res.races);
  res.suppressed =
      report::removeSuppressed(supp, *res.trace, res.races, &res.deadlocks);
  setActivity("writing the report on " + res.what);
  return res;
}

} // namespace racepredict::tool
