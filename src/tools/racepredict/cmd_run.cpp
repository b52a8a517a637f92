//===- tools/racepredict/cmd_run.cpp - `racepredict run`
//-------------------===//
//
// record → analyze → replay every finding → report the confirmed ones. The
// program gets the same argv, stdin and environment in the recording and
// in every replay (program_input.h, replay/runner.h); replays run in
// parallel (-j) in their own processes, each with its own schedule and
// result file in a private work directory.
//
#include "analysis_pipeline.h"
#include "commands.h"
#include "pipeline_stats.h"
#include "program_input.h"
#include "scratch_dir.h"

#include "racepredict/replay/replay_driver.h"
#include "racepredict/report/recording_stop_report.h"
#include "racepredict/report/run_report.h"
#include "racepredict/report/violation_report.h"
#include "racepredict/report/witness_file.h"
#include "racepredict/support/file_io.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>
#include <variant>

namespace racepredict::tool {
namespace {

struct RunArgs {
  AnalysisOptions analysis;
  std::string format = "text";
  std::string witnessDir;
  std::string output;
  std::string traceOut;
  std::string stdinFile;
  bool reportAll = false;
  bool fullWitness = false;
  bool keepAslr = false;
  bool keepWorkDir = false;
  unsigned stepTimeoutMs = 3000;
  double replayTimeout = 60;
  unsigned recordTimeout = 0; ///< --record-timeout S (0: none)
  std::vector<std::string> command;
};

/// The first SIGINT/SIGTERM to `run` while it records: the recording is
/// ended (runProgram sends the program SIGTERM) and analysed; the handler
/// then gives both signals their default action, so a second one aborts.
std::atomic<int> gInterrupt{0};

void onInterrupt(int sig) {
  gInterrupt.store(sig);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

/// One finding to replay: its schedule (or why there is none).
struct Job {
  Expected<replay::Schedule> schedule = Error{""};
  report::ReplayInfo info;
  /// A violation's pattern and events, for the replay's judgement.
  std::optional<replay::ViolationTarget> violation;
};

report::ReplayInfo verdictInfo(const replay::ReplayOutcome &o) {
  report::ReplayInfo info;
  info.verdict = replay::verdictName(o.verdict);
  info.message = o.message;
  info.location = o.location;
  info.variable = o.variable;
  info.step = o.step;
  info.steps = o.steps;
  return info;
}

/// Replays every job that has a schedule, `jobs` at a time.
void replayAll(std::vector<Job> &jobs, const RunArgs &a,
               const std::string &work, const std::string &stdinFile,
               const trace::Trace &t) {
  std::atomic<size_t> next{0};
  auto worker = [&]() {
    for (size_t i; (i = next++) < jobs.size();) {
      Job &j = jobs[i];
      if (!j.schedule)
        continue;
      replay::ReplayRequest req;
      req.argv = a.command;
      req.stdinFile = stdinFile;
      std::string base = work + "/replay-" + std::to_string(i);
      req.schedulePath = base + ".rpsched";
      req.resultPath = base + ".result";
      req.outputFile = base + ".out";
      req.stepTimeoutMs = a.stepTimeoutMs;
      req.keepAslr = a.keepAslr;
      // A replay gets the recording's limit too (a step's time-out of slack:
      // the witness may need a little more than the recording had).
      req.timeoutSeconds =
          a.recordTimeout ? std::min(a.replayTimeout,
                                     a.recordTimeout + a.stepTimeoutMs / 1000.0)
                          : a.replayTimeout;
      req.graceSeconds = 1;
      if (j.violation) {
        req.violation = &*j.violation;
        req.trace = &t;
      }
      auto o = replay::replaySchedule(*j.schedule, req);
      report::ReplayInfo info;
      if (o) {
        info = verdictInfo(*o);
      } else {
        info.verdict = replay::verdictName(replay::Verdict::NotReproduced);
        info.message = "not replayed: " + o.error().message;
      }
      info.witnessFile = j.info.witnessFile;
      info.schedule = std::move(j.info.schedule);
      info.scheduleEvents = std::move(j.info.scheduleEvents);
      j.info = std::move(info);
    }
  };
  unsigned n =
      std::max(1u, std::min<unsigned>(a.analysis.jobs,
                                      static_cast<unsigned>(jobs.size())));
  std::vector<std::thread> pool;
  for (unsigned k = 0; k < n; ++k)
    pool.emplace_back(worker);
  for (auto &t : pool)
    t.join();
}

Job jobFor(Expected<replay::Schedule> s, const std::string &witnessFile) {
  Job j;
  j.info.witnessFile = witnessFile;
  if (s) {
    for (const auto &st : s->steps) {
      j.info.schedule.push_back(st.desc);
      j.info.scheduleEvents.push_back(st.event);
    }
  } else {
    j.info.verdict = replay::verdictName(replay::Verdict::NotReproduced);
    j.info.message = "not replayed: " + s.error().message;
  }
  j.schedule = std::move(s);
  return j;
}

/// A recording to analyse.
struct Recorded {
  std::string trace;
  int exitCode = 0;
  bool cut = false; ///< killed without a chance to write END
};

/// Records the program; returns the recording or an exit code.
std::variant<Recorded, int> record(const RunArgs &a, const std::string &work,
                                   const std::string &stdinFile,
                                   std::string &quoted) {
  namespace fs = std::filesystem;
  std::string trace = !a.traceOut.empty()     ? a.traceOut
                      : !a.witnessDir.empty() ? a.witnessDir + "/trace.rptrace"
                                              : work + "/trace.rptrace";
  std::error_code ec;
  fs::create_directories(fs::absolute(trace).parent_path(), ec);
  trace = fs::absolute(trace).string();
  fs::remove(trace, ec);
  std::cerr << "racepredict run: recording" << quoted << "\n";
  replay::RunSpec spec;
  spec.argv = a.command;
  spec.stdinFile = stdinFile;
  // replay= (empty) too: a replay= in the user's RACEPREDICT_OPTIONS must
  // not turn the recording into a replay.
  spec.options = {"trace=" + trace, "replay="};
  spec.stdoutToStderr = true; // stdout is the report's
  spec.keepAslr = a.keepAslr;
  if (a.recordTimeout) {
    // The recorder stops itself (docs/recording.md); the kill is for a
    // program that has no recorder.
    spec.options.push_back("max_seconds=" + std::to_string(a.recordTimeout));
    spec.timeoutSeconds = a.recordTimeout + 30.0;
  }
  spec.interrupt = &gInterrupt;
  struct sigaction sa = {}, oldInt = {}, oldTerm = {};
  sa.sa_handler = onInterrupt;
  sigaction(SIGINT, &sa, &oldInt);
  sigaction(SIGTERM, &sa, &oldTerm);
  auto rec = replay::runProgram(spec);
  if (!gInterrupt.load()) { // else the handler has set the defaults
    sigaction(SIGINT, &oldInt, nullptr);
    sigaction(SIGTERM, &oldTerm, nullptr);
  }
  if (!rec) {
    std::cerr << "racepredict: " << rec.error().message << "\n";
    return kExitInput;
  }
  bool haveTrace = fs::exists(trace);
  // Ctrl-C reaches the program too, which may end before we forward it.
  bool interrupted = rec->interrupted || gInterrupt.load() != 0;
  if (interrupted || rec->timedOut)
    std::cerr << "racepredict run: "
              << (rec->timedOut ? "the program did not end at "
                                  "--record-timeout; killed it"
                                : "interrupted: the recording was ended")
              << "; analysing what was recorded"
              << (interrupted ? " (interrupt again to abort)" : "") << "\n";
  if (!rec->exited && !interrupted && !rec->timedOut) {
    std::cerr << "racepredict: the program was killed by signal " << rec->signal
              << " (" << strsignal(rec->signal)
              << ") while recording; nothing was analysed or replayed. "
              << (haveTrace ? "The trace is kept: " + trace
                            : std::string("It left no trace."))
              << "\n";
    return kExitInput;
  }
  if (!haveTrace) {
    std::cerr << "racepredict: the program wrote no trace (exit status "
              << rec->exitCode << "); was it built with racepredict-cc?\n";
    return kExitInput;
  }
  Recorded r;
  r.trace = trace;
  r.exitCode = rec->exited ? rec->exitCode : 0;
  r.cut = !rec->exited && rec->signal == SIGKILL;
  return r;
}

int runRun(RunArgs a) {
  auto scratch = ScratchDir::create("racepredict-run");
  if (!scratch) {
    std::cerr << "racepredict: " << scratch.error().message << "\n";
    return kExitInput;
  }
  (*scratch)->keep(a.keepWorkDir);
  const std::string *work = &(*scratch)->path();
  auto in = programStdin(a.stdinFile, *work);
  if (!in) {
    std::cerr << "racepredict: " << in.error().message << "\n";
    return kExitInput;
  }
  std::string quoted;
  for (const auto &c : a.command)
    quoted += " " + shellQuote(c);
  auto rec = record(a, *work, *in, quoted);
  if (auto *rc = std::get_if<int>(&rec)) {
    // The trace of a crashed recording stays for a look; the work directory
    // only needs to when the trace is in it.
    (*scratch)->keep(a.keepWorkDir ||
                     (a.traceOut.empty() && a.witnessDir.empty() &&
                      std::filesystem::exists(*work + "/trace.rptrace")));
    return *rc;
  }
  const Recorded &recorded = std::get<Recorded>(rec);
  a.analysis.trace = recorded.trace;
  a.analysis.allowTruncated |= recorded.cut;
  auto res = runAnalysis(a.analysis);
  if (!res) {
    std::cerr << "racepredict: " << res.error().message << "\n";
    return res.error().resource ? kExitInconclusive : kExitInput;
  }
  const trace::Trace &t = *res->trace;
  // A recording the recorder stopped says why in the report instead.
  if (recorded.exitCode != 0 && !t.stop)
    std::cerr << "racepredict run: note: the program exited with status "
              << recorded.exitCode << "\n";
  // The whole trace's index where a finding or the deadlock report needs
  // it, as `analyze` builds it (the same stats.stages).
  const analysis::TraceIndex *idx = res->races.races.empty() &&
                                            !a.analysis.doDeadlocks() &&
                                            res->violations.violations.empty()
                                        ? nullptr
                                        : &res->fullIndex();
  std::vector<std::string> files;
  if (!a.witnessDir.empty()) {
    auto w = report::writeWitnessFiles(
        a.witnessDir, t, res->races,
        a.analysis.doDeadlocks() ? &res->deadlocks : nullptr, idx,
        a.analysis.trace);
    if (!w) {
      std::cerr << "racepredict: " << w.error().message << "\n";
      return kExitInput;
    }
    files = *w;
    std::string err;
    if (!report::writeViolationWitnessFiles(a.witnessDir, t, res->violations,
                                            res->properties, a.analysis.trace,
                                            &err)) {
      std::cerr << "racepredict: " << err << "\n";
      return kExitInput;
    }
    for (size_t i = 0; i < res->violations.violations.size(); ++i)
      files.push_back(a.witnessDir + "/violation-" + std::to_string(i) +
                      ".json");
  }
  report::SourceText src;
  std::vector<Job> jobs;
  size_t fileIdx = 0;
  auto nextFile = [&]() {
    return fileIdx < files.size() ? files[fileIdx++] : std::string();
  };
  for (const auto &f : res->races.races)
    jobs.push_back(jobFor(
        replay::raceSchedule(*idx, f.schedule.steps(), f.first, f.second, src),
        nextFile()));
  for (const auto &d : res->deadlocks.deadlocks)
    jobs.push_back(
        jobFor(replay::deadlockSchedule(*idx, d.steps,
                                        replay::deadlockBlocks(d.blocked), src),
               nextFile()));
  for (const auto &v : res->violations.violations) {
    jobs.push_back(
        jobFor(replay::violationSchedule(*idx, v.steps, src), nextFile()));
    jobs.back().violation = replay::ViolationTarget{
        &res->properties[v.property].patterns[v.pattern], v.events};
  }
  if (!jobs.empty())
    std::cerr << "racepredict run: " << t.events.size() << " events, "
              << jobs.size() << " predicted finding"
              << (jobs.size() == 1 ? "" : "s") << "; replaying "
              << (jobs.size() == 1 ? "it" : "each") << "\n";
  replayAll(jobs, a, *work, *in, t);

  report::RunReport r;
  r.trace = &t;
  r.index = idx;
  r.races = &res->races;
  r.deadlocks = a.analysis.doDeadlocks() ? &res->deadlocks : nullptr;
  size_t k = 0;
  for (; k < res->races.races.size(); ++k)
    r.raceReplays.push_back(jobs[k].info);
  for (; k < res->races.races.size() + res->deadlocks.deadlocks.size(); ++k)
    r.deadlockReplays.push_back(jobs[k].info);
  for (; k < jobs.size(); ++k)
    r.violationReplays.push_back(jobs[k].info);
  if (!res->properties.empty()) {
    r.violations = &res->violations;
    r.properties = &res->properties;
  }
  r.reportAll = a.reportAll;
  r.command = quoted;
  r.argv = a.command;
  r.ctx.tracePath = a.analysis.trace;
  r.ctx.fullWitness = a.fullWitness;
  r.pipelineStats = pipelineStatsJson(*res);

  auto outFile = OutputFile::open(a.output.empty() ? "-" : a.output, "report");
  if (!outFile) {
    std::cerr << "racepredict: " << outFile.error().message << "\n";
    return kExitInput;
  }
  std::ostream *out = &outFile->stream();
  if (a.format == "json")
    report::writeRunReportJson(r, *out);
  else if (a.format == "sarif")
    report::writeRunReportSarif(r, *out);
  else if (a.format == "html")
    report::writeRunReportHtml(r, *out);
  else
    report::printRunReport(r, *out);
  if (int rc = finishOutput(*outFile, kExitClean); rc != kExitClean)
    return rc;
  if (a.format != "text" || !a.output.empty())
    std::cerr << report::runSummary(r) << "\n";
  if (report::confirmedCount(r) || report::observedDeadlock(t))
    return kExitFound;
  // Predictions that replay did not confirm, or undecided candidates: never
  // a clean 0 (DESIGN.md, exit status 4).
  return !jobs.empty() || report::unknownCount(r) ? kExitInconclusive
                                                  : kExitClean;
}

} // namespace

void addRunCommand(CLI::App &app, int &exitCode) {
  auto args = std::make_shared<RunArgs>();
  CLI::App *cmd = app.add_subcommand(
      "run", "Record the program, predict its races (and deadlocks, "
             "property violations), replay every prediction and report the "
             "ones replay confirms (exit 1 "
             "when one is confirmed, 4 when findings were predicted but none "
             "confirmed)");
  addAnalysisFlags(cmd, args->analysis);
  cmd->get_option("--jobs")->description(
      "Solver threads, and how many replays run in parallel");
  cmd->add_option("--format", args->format, "Report format")
      ->check(CLI::IsMember({"text", "json", "sarif", "html"}));
  cmd->add_option("-o,--output", args->output, "Write the report here");
  cmd->add_flag("--full-witness", args->fullWitness,
                "Text report: every witness step, not the condensed witness");
  cmd->add_option("--witness-dir", args->witnessDir,
                  "Write each witness as JSON here (with the trace, so that "
                  "`racepredict replay --schedule` can reproduce it later)");
  cmd->add_option("--trace-out", args->traceOut,
                  "Record into this trace (kept) instead of a temporary one");
  cmd->add_option("--stdin", args->stdinFile,
                  "Give the program this file as standard input in the "
                  "recording and every replay (default: our stdin when it is "
                  "not a terminal, else /dev/null)");
  cmd->add_flag("--report-all", args->reportAll,
                "Also report the findings replay did not confirm (diverged, "
                "not reproduced)");
  cmd->add_option("--step-timeout-ms", args->stepTimeoutMs,
                  "How long one replay step may take before that replay "
                  "ends as diverged");
  cmd->add_option("--replay-timeout", args->replayTimeout,
                  "Kill a replayed program after this many seconds");
  cmd->add_option("--record-timeout", args->recordTimeout,
                  "Stop recording after this many seconds (the program is "
                  "ended) and analyse what was recorded; replays get the "
                  "same limit. SIGINT/SIGTERM to `run` also end the "
                  "recording (a second one aborts)");
  cmd->add_flag("--keep-aslr", args->keepAslr,
                "Keep address-space randomisation on");
  cmd->add_flag("--keep-work-dir", args->keepWorkDir,
                "Keep the temporary directory (schedules, verdicts, replay "
                "outputs)");
  cmd->add_option("command", args->command, "-- PROG ARGS...")->required();
  cmd->callback([args, &exitCode]() { exitCode = runRun(*args); });
}

} // namespace racepredict::tool
