//===- batch/run_step.cpp - Record, predict and replay-confirm one test ---===//
#include "racepredict/batch/run_step.h"

#include "racepredict/batch/slurm.h"

#include "step_parts.h"

#include <filesystem>
#include <sstream>

namespace racepredict::batch {

namespace fs = std::filesystem;

namespace {

bool startsWith(const std::string &s, const std::string &prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

/// The messages of src/tools/racepredict/cmd_run.cpp that say how the
/// recorded program ended.
constexpr const char *kExitNote = "racepredict run: note: the program exited "
                                  "with status ";
constexpr const char *kKilled = "racepredict: the program was killed by "
                                "signal ";
constexpr const char *kNoTrace = "racepredict: the program wrote no trace (";
constexpr const char *kError = "racepredict: ";
/// "racepredict run: 13 events, 2 predicted findings; replaying each"
constexpr const char *kReplaying = "; replaying ";

/// Sets the replay command of every finding that has a witness file.
void addReproduceCommands(const TestSpec &spec,
                          const std::vector<std::string> &program,
                          const StepConfig &cfg,
                          std::vector<TestFinding> &findings) {
  for (auto &f : findings) {
    if (!f.replay.is_object())
      continue;
    std::string w = f.replay.value("witness_file", std::string());
    if (!w.empty())
      f.replay["reproduce"] =
          reproduceCommand(spec, program, cfg.racepredict, w);
  }
}

} // namespace

RunLog parseRunLog(const std::string &output) {
  RunLog out;
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    if (startsWith(line, kExitNote)) {
      std::string code = line.substr(std::string(kExitNote).size());
      out.ran = "exit status " + code;
      out.programFailed = code != "0";
    } else if (line.find(kReplaying) != std::string::npos &&
               startsWith(line, "racepredict run: ")) {
      out.replaying = true;
    } else if (startsWith(line, kKilled)) {
      // "… signal 6 (Aborted) while recording; …"
      std::string rest = line.substr(std::string(kKilled).size());
      size_t close = rest.find(')');
      out.ran = "signal " + (close == std::string::npos
                                 ? rest.substr(0, rest.find(' '))
                                 : rest.substr(0, close + 1));
      out.programFailed = out.crashed = true;
    }
    if (startsWith(line, kNoTrace)) {
      // "… wrote no trace (exit status 127); was it built …"
      std::string rest = line.substr(std::string(kNoTrace).size());
      out.ran = rest.substr(0, rest.find(')'));
      out.programFailed = out.ran != "exit status 0";
    }
    if (startsWith(line, kError))
      out.error = line.substr(std::string(kError).size());
  }
  return out;
}

std::vector<std::string> runArgv(const StepConfig &cfg, const std::string &dir,
                                 const std::string &trace,
                                 const std::vector<std::string> &program) {
  std::vector<std::string> argv = {cfg.racepredict,
                                   "run",
                                   "--format",
                                   "json",
                                   "--report-all",
                                   "-o",
                                   dir + "/run.json",
                                   "--trace-out",
                                   trace,
                                   "--witness-dir",
                                   dir + "/witnesses"};
  argv.insert(argv.end(), cfg.analyzeFlags.begin(), cfg.analyzeFlags.end());
  argv.insert(argv.end(), cfg.replayFlags.begin(), cfg.replayFlags.end());
  argv.push_back("--");
  argv.insert(argv.end(), program.begin(), program.end());
  return argv;
}

std::string reproduceCommand(const TestSpec &spec,
                             const std::vector<std::string> &program,
                             const std::string &racepredict,
                             const std::string &witnessFile) {
  std::string cmd;
  if (!spec.cwd.empty())
    cmd += "cd " + shellQuote(spec.cwd) + " && ";
  if (!spec.env.empty()) {
    cmd += "env";
    for (const auto &e : spec.env)
      cmd += " " + shellQuote(e);
    cmd += " ";
  }
  cmd += shellQuote(racepredict) + " replay --schedule " +
         shellQuote(witnessFile) + " --";
  for (const auto &a : program)
    cmd += " " + shellQuote(a);
  return cmd;
}

void runReplayed(const TestSpec &spec, const std::vector<std::string> &argv,
                 const std::string &dir, const StepConfig &cfg,
                 const Budget &budget, TestResult &res) {
  std::string trace = dir + "/" + fileSafeName(spec.name) + ".rptrace";
  ProcessSpec p;
  p.argv = runArgv(cfg, dir, trace, argv);
  p.cwd = spec.cwd;
  // The test's environment as it is: `run` keeps the user's
  // RACEPREDICT_OPTIONS and sets only trace= and replay=.
  p.env = environmentWith(spec.env);
  p.outputPath = dir + "/output.txt";
  p.deadline = budget.end;
  ProcessResult r = runProcess(p);
  res.outputTail = fileTail(p.outputPath, 4096);
  if (r.status == ProcessResult::Status::SpawnFailed) {
    res.status = kStatusError;
    res.reason = r.error;
    return;
  }
  // The messages of run are at the end; the program's output before them
  // can be long.
  RunLog log = parseRunLog(fileTail(p.outputPath, 1 << 16));
  if (r.status == ProcessResult::Status::TimedOut) {
    // Past the recording, the program's own end is known.
    res.ran = log.replaying ? log.ran : r.describe();
    res.programFailed = log.replaying ? log.programFailed : true;
    res.status = kStatusTimeout;
    res.reason = std::string(log.replaying ? "replays stopped"
                                           : "recording or analysis stopped") +
                 ": " + budget.why(cfg);
    return;
  }
  res.ran = log.ran;
  res.programFailed = log.programFailed;
  bool exited = r.status == ProcessResult::Status::Exited;
  // run: 0 nothing predicted, 1 confirmed, 4 predicted but nothing
  // confirmed, or queries undecided (readReport tells them apart by the
  // report's stats.unknown); 2 input error (also a crash while recording).
  if (exited && (r.exitCode == 0 || r.exitCode == 1 || r.exitCode == 4)) {
    res.replayed = true;
    TraceResult tr = readReport(dir + "/run.json", trace, res.findings);
    res.traces.push_back(std::move(tr));
    addReproduceCommands(spec, argv, cfg, res.findings);
    return;
  }
  if (exited && r.exitCode == 2 && fs::exists(trace)) {
    // Nothing was replayed, but the recording is there: analyse it as a
    // recorded test's trace.
    res.replayNote =
        (log.crashed ? "the program was killed by " + log.ran +
                           " while recording, and racepredict run replays "
                           "only programs that end on their own"
                     : "racepredict run did not replay: " + log.error) +
        "; its trace is analysed and the findings are predicted only";
    res.traces.push_back(analyzeTrace(trace, cfg, budget, res.findings));
    return;
  }
  res.status = kStatusError;
  res.reason = "racepredict run failed (" + r.describe() + ")" +
               (log.error.empty() ? "" : ": " + log.error);
}

} // namespace racepredict::batch
