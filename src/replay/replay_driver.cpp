//===- replay/replay_driver.cpp - Replay one schedule, get its verdict ----===//
#include "racepredict/replay/replay_driver.h"

#include "racepredict/abi/replay.h"
#include "racepredict/support/file_io.h"

#include <cstdio>

namespace racepredict::replay {

std::vector<std::string> replayOptions(const ReplayRequest &r) {
  std::vector<std::string> o{"replay=" + r.schedulePath};
  if (!r.resultPath.empty())
    o.push_back("replay_result=" + r.resultPath);
  o.push_back("replay_timeout=" + std::to_string(r.stepTimeoutMs));
  o.push_back(std::string("replay_verbose=") + (r.verbose ? "1" : "0"));
  // Always explicit: a trace= in the user's own RACEPREDICT_OPTIONS must
  // not make the replay overwrite the recording it replays.
  o.push_back("trace=" + (r.traceOut.empty() ? "/dev/null" : r.traceOut));
  return o;
}

Expected<ReplayOutcome> replaySchedule(const Schedule &s,
                                       const ReplayRequest &r) {
  {
    auto out = OutputFile::open(r.schedulePath, "schedule file",
                                OutputFile::Kind::Binary);
    if (!out)
      return out.error();
    writeSchedule(s, out->stream());
    if (auto w = out->finish(); !w)
      return w.error();
  }
  std::remove(r.resultPath.c_str());
  RunSpec spec;
  spec.argv = r.argv;
  spec.stdinFile = r.stdinFile;
  spec.outputFile = r.outputFile;
  spec.options = replayOptions(r);
  spec.keepAslr = r.keepAslr;
  spec.timeoutSeconds = r.timeoutSeconds;
  spec.verdictFile = r.resultPath;
  spec.graceSeconds = r.graceSeconds;
  auto run = runProgram(spec);
  if (!run)
    return run.error();
  ReplayOutcome o;
  o.run = *run;
  auto res = readReplayResult(r.resultPath);
  if (!res) {
    std::string why;
    if (run->timedOut)
      why =
          "it was killed after " + std::to_string(int(r.timeoutSeconds)) + " s";
    else if (!run->exited)
      why = "it was killed by signal " + std::to_string(run->signal);
    else
      why = "it exited with status " + std::to_string(run->exitCode);
    o.message = "the replayed program left no verdict (" + why +
                "); was it built with racepredict-cc?";
    o.noVerdict = true;
    return o;
  }
  o.verdict = res->verdict;
  o.message = res->message;
  if (res->reached) {
    // The runtime only ran the schedule; whether the violation happened
    // is decided here from what its steps did.
    auto obs = parseObservations(res->observations);
    if (s.kind != Schedule::Kind::Violation || !r.violation || !r.trace) {
      o.message = "the schedule ran to its end, but nothing says which "
                  "violation to look for";
    } else if (!obs) {
      o.message = obs.error().message;
    } else {
      ViolationVerdict v = judgeViolation(*r.trace, s, *r.violation, *obs);
      o.verdict = v.verdict;
      o.message = v.message;
    }
  } else if (s.kind == Schedule::Kind::Violation &&
             res->verdict == Verdict::Confirmed) {
    o.verdict = Verdict::NotReproduced; // only the judgement confirms
    o.message = "the runtime confirmed a violation schedule by itself";
  }
  o.location = res->location;
  o.variable = res->variable;
  o.step = res->step;
  o.steps = res->steps;
  // A deadlock confirmation ends the process with its own status: a
  // verdict without it means the watchdog did not end it.
  if (s.kind == Schedule::Kind::Deadlock && o.verdict == Verdict::Confirmed &&
      !(run->exited && run->exitCode == RP_REPLAY_DEADLOCK_EXIT))
    o.message += " (but the process did not end with the watchdog's status)";
  return o;
}

} // namespace racepredict::replay
