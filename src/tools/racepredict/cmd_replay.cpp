//===- tools/racepredict/cmd_replay.cpp - `racepredict replay` ------------===//
//
// Reproduces one finding: validates its witness file against the trace,
// translates it into a schedule file and runs the program under it, the
// runtime printing every step with its source line as it executes. The
// same schedule works under a debugger: --print-env prints the environment
// to use and exits without running.
//
#include "commands.h"
#include "program_input.h"
#include "scratch_dir.h"

#include "racepredict/property/parser.h"
#include "racepredict/property/pattern_check.h"
#include "racepredict/replay/replay_driver.h"
#include "racepredict/report/witness_reader.h"
#include "racepredict/support/file_io.h"
#include "racepredict/trace/trace_file.h"

#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

namespace racepredict::tool {
namespace {

struct ReplayArgs {
  std::string witness;
  std::string trace;
  std::string property;
  std::string stdinFile;
  std::string scheduleOut;
  std::string traceOut;
  unsigned stepTimeoutMs = 3000;
  double timeout = 0;
  bool quiet = false;
  bool printEnv = false;
  bool keepAslr = false;
  std::vector<std::string> command;
};

/// The witness's trace: --trace, else its "trace" field as written, else
/// relative to the witness file's directory.
std::string tracePathFor(const ReplayArgs &a, const report::WitnessSpec &w) {
  namespace fs = std::filesystem;
  if (!a.trace.empty())
    return a.trace;
  if (w.trace.empty() || fs::path(w.trace).is_absolute() || fs::exists(w.trace))
    return w.trace;
  fs::path beside = fs::path(a.witness).parent_path() / w.trace;
  return fs::exists(beside) ? beside.string() : w.trace;
}

/// A violation witness's property file: --property, else its
/// "property_file" as written, else relative to the witness's directory.
std::string propertyPathFor(const ReplayArgs &a, const report::WitnessSpec &w) {
  namespace fs = std::filesystem;
  if (!a.property.empty())
    return a.property;
  const std::string &p = w.propertyFile;
  if (p.empty() || fs::path(p).is_absolute() || fs::exists(p))
    return p;
  fs::path beside = fs::path(a.witness).parent_path() / p;
  return fs::exists(beside) ? beside.string() : p;
}

/// The violation a witness names, checked on the trace (the pattern holds
/// on the witness), as the replay's judgement needs it.
Expected<replay::ViolationTarget>
violationTarget(const ReplayArgs &a, const report::WitnessSpec &w,
                const analysis::TraceIndex &idx,
                std::vector<property::Property> &props) {
  std::string file = propertyPathFor(a, w);
  if (file.empty())
    return Error{a.witness + " names no property file; give it with "
                             "--property"};
  auto ps = property::parsePropertyFile(file);
  if (!ps)
    return ps.error();
  props = std::move(*ps);
  for (const property::Property &p : props) {
    if (p.name != w.property)
      continue;
    if (w.patternIndex >= p.patterns.size())
      return Error{"property " + w.property + " in " + file +
                   " has no pattern " + std::to_string(w.patternIndex) +
                   ": is it the same file?"};
    replay::ViolationTarget v{&p.patterns[w.patternIndex], w.violationEvents};
    property::TraceMatcher m(idx.trace());
    if (auto why = property::checkPatternOnSchedule(m, *v.pattern, v.events,
                                                    w.witness))
      return Error{a.witness +
                   ": the violation does not hold on the trace: " + *why};
    return v;
  }
  return Error{"no property " + w.property + " in " + file};
}

int runReplay(const ReplayArgs &a) {
  // The schema check-witness reads too (report/witness_reader.h).
  auto w = report::readWitnessFile(a.witness);
  if (!w) {
    std::cerr << "racepredict: " << w.error().message << "\n";
    return kExitInput;
  }
  std::string tracePath = tracePathFor(a, *w);
  if (tracePath.empty()) {
    std::cerr << "racepredict: " << a.witness
              << " names no trace; give it with --trace\n";
    return kExitInput;
  }
  auto t = trace::readTraceFile(tracePath);
  if (!t) {
    std::cerr << "racepredict: " << t.error().message << "\n";
    return kExitInput;
  }
  analysis::TraceIndex idx(*t);
  // Races among accesses of different sizes are checked on their pieces.
  std::optional<analysis::PieceIndex> pieces;
  if (auto p = analysis::splitOverlappingAccesses(*t))
    pieces.emplace(std::move(*p));
  std::vector<analysis::BlockReason> reasons;
  auto steps =
      report::witnessSteps(idx, *w, &reasons, pieces ? &*pieces : nullptr);
  if (!steps) {
    std::cerr << "racepredict: " << a.witness
              << ": the witness does not hold on the trace: "
              << steps.error().message << "\n";
    return kExitInput;
  }
  std::vector<property::Property> props;
  replay::ViolationTarget target;
  bool violation = w->kind == report::WitnessKind::Violation;
  if (violation) {
    auto v = violationTarget(a, *w, idx, props);
    if (!v) {
      std::cerr << "racepredict: " << v.error().message << "\n";
      return kExitInput;
    }
    target = *v;
  }
  report::SourceText src;
  auto sched =
      violation ? replay::violationSchedule(idx, *steps, src)
      : w->kind == report::WitnessKind::Deadlock
          ? replay::deadlockSchedule(idx, *steps,
                                     replay::deadlockBlocks(reasons), src)
          : replay::raceSchedule(idx, *steps, w->first, w->second, src);
  if (!sched) {
    std::cerr << "racepredict: cannot replay " << a.witness << ": "
              << sched.error().message << "\n";
    return kExitInput;
  }
  auto scratch = ScratchDir::create("racepredict-replay");
  if (!scratch) {
    std::cerr << "racepredict: " << scratch.error().message << "\n";
    return kExitInput;
  }
  const std::string *work = &(*scratch)->path();
  replay::ReplayRequest req;
  req.argv = a.command;
  req.schedulePath = a.scheduleOut.empty()
                         ? *work + "/schedule.rpsched"
                         : std::filesystem::absolute(a.scheduleOut).string();
  req.resultPath = *work + "/result";
  req.stepTimeoutMs = a.stepTimeoutMs;
  req.verbose = !a.quiet;
  req.keepAslr = a.keepAslr;
  req.timeoutSeconds = a.timeout;
  // The user watches the program: let it end — except after a violation,
  // which may leave it hung for good (a lock-order violation is a
  // deadlock about to happen): then it gets a few seconds.
  req.graceSeconds = violation ? 3 : -1;
  req.traceOut = a.traceOut;
  if (violation) {
    req.violation = &target;
    req.trace = &*t;
  }
  std::string quotedCmd;
  for (const auto &c : a.command)
    quotedCmd += " " + shellQuote(c);
  if (a.printEnv) {
    // The schedule file must outlive us: only with --schedule-out.
    replay::ReplayRequest dbg = req;
    dbg.resultPath.clear();
    dbg.verbose = true;
    if (a.scheduleOut.empty()) {
      std::cerr << "racepredict: --print-env needs --schedule-out FILE (the "
                   "schedule must outlive this command)\n";
      return kExitInput;
    }
    auto out = OutputFile::open(req.schedulePath, "schedule file",
                                OutputFile::Kind::Binary);
    if (!out) {
      std::cerr << "racepredict: " << out.error().message << "\n";
      return kExitInput;
    }
    replay::writeSchedule(*sched, out->stream());
    if (int rc = finishOutput(*out, kExitClean); rc != kExitClean)
      return rc;
    std::string opts;
    for (const auto &o : replay::replayOptions(dbg))
      opts += (opts.empty() ? "" : ":") + o;
    std::cout << "RACEPREDICT_OPTIONS=" << shellQuote(opts) << "\n";
    std::cerr << "racepredict: for example: RACEPREDICT_OPTIONS="
              << shellQuote(opts) << " gdb --args" << quotedCmd << "\n";
    return kExitClean;
  }
  auto in = programStdin(a.stdinFile, *work);
  if (!in) {
    std::cerr << "racepredict: " << in.error().message << "\n";
    return kExitInput;
  }
  req.stdinFile = *in;
  std::cerr << "racepredict replay: "
            << (violation ? "violation (" + w->property + ")"
                          : std::string(report::witnessKindName(w->kind)))
            << " witness " << a.witness << ", " << sched->steps.size()
            << " steps, on" << quotedCmd << "\n";
  if (!a.scheduleOut.empty())
    std::cerr << "racepredict replay: under a debugger: "
                 "RACEPREDICT_OPTIONS="
              << shellQuote("replay=" + req.schedulePath +
                            ":replay_verbose=1:replay_timeout=0")
              << " gdb --args" << quotedCmd << "\n";
  auto o = replay::replaySchedule(*sched, req);
  if (!o) {
    std::cerr << "racepredict: " << o.error().message << "\n";
    return kExitInput;
  }
  if (o->noVerdict) {
    std::cerr << "racepredict: " << o->message << "\n";
    return kExitInput;
  }
  std::cout << "racepredict replay: " << replay::verdictName(o->verdict);
  if (o->step)
    std::cout << " at step " << o->step << "/" << o->steps;
  std::cout << ": " << o->message << "\n";
  // A witness that did not reproduce leaves its prediction standing
  // unconfirmed: inconclusive (4), never a clean 0 (DESIGN.md's exit codes).
  return o->verdict == replay::Verdict::Confirmed ? kExitFound
                                                  : kExitInconclusive;
}

} // namespace

void addReplayCommand(CLI::App &app, int &exitCode) {
  auto args = std::make_shared<ReplayArgs>();
  CLI::App *cmd = app.add_subcommand(
      "replay", "Run the program under one witness schedule and confirm the "
                "race, deadlock or property violation really happens (exit "
                "1 when confirmed, 4 when diverged or not reproduced)");
  cmd->add_option("--schedule", args->witness,
                  "Witness file written by --witness-dir (analyze or run)")
      ->required();
  cmd->add_option("--trace", args->trace,
                  "The trace of the witness (default: its \"trace\" field)");
  cmd->add_option("--property", args->property,
                  "A violation witness's property file (default: its "
                  "\"property_file\" field)");
  cmd->add_option("--stdin", args->stdinFile,
                  "Give the program this file as standard input (default: "
                  "our stdin when it is not a terminal, else /dev/null)");
  cmd->add_option("--step-timeout-ms", args->stepTimeoutMs,
                  "How long one step may take before the replay ends as "
                  "diverged (0 = forever)");
  cmd->add_option("--timeout", args->timeout,
                  "Kill the program after this many seconds (0 = never)");
  cmd->add_option("--schedule-out", args->scheduleOut,
                  "Keep the runtime's schedule file here (to replay again, "
                  "e.g. under gdb)");
  cmd->add_option("--trace-out", args->traceOut,
                  "Also record the replayed run into this trace");
  cmd->add_flag("--print-env", args->printEnv,
                "Only write --schedule-out and print the RACEPREDICT_OPTIONS "
                "that replay it (for gdb --args PROG)");
  cmd->add_flag("-q,--quiet", args->quiet, "Do not print the steps");
  cmd->add_flag("--keep-aslr", args->keepAslr,
                "Keep address-space randomisation on");
  cmd->add_option("command", args->command, "-- PROG ARGS...")->required();
  cmd->callback([args, &exitCode]() { exitCode = runReplay(*args); });
}

} // namespace racepredict::tool
