//===- batch/test_step.cpp - The per-test step: replayed or recorded ------===//
#include "racepredict/batch/test_step.h"

#include "racepredict/batch/replay_target.h"
#include "step_parts.h"

#include "racepredict/batch/analyze_report.h"
#include "racepredict/trace/trace_file.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace racepredict::batch {

namespace fs = std::filesystem;

std::string Budget::why(const StepConfig &cfg) const {
  if (isWholeRun)
    return "the whole-run budget (--budget) ran out";
  return "the test took longer than its time budget (--test-timeout " +
         std::to_string(static_cast<long>(cfg.testTimeout)) + " s, " +
         (cfg.replay ? "recording, analysis and replays"
                     : "recording and analysis") +
         ")";
}

Budget stepBudget(const StepConfig &cfg, Clock::time_point start,
                  Clock::time_point budgetEnd) {
  Budget budget{budgetEnd, true};
  if (cfg.testTimeout > 0) {
    auto own = start + std::chrono::duration_cast<Clock::duration>(
                           std::chrono::duration<double>(cfg.testTimeout));
    if (own < budgetEnd)
      budget = {own, false};
  }
  return budget;
}

TraceResult readReport(const std::string &reportPath,
                       const std::string &tracePath,
                       std::vector<TestFinding> &findings) {
  TraceResult tr;
  tr.path = tracePath;
  nlohmann::json j;
  try {
    std::ifstream in(reportPath);
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception &e) {
    tr.status = kStatusError;
    tr.reason =
        "cannot read the analysis report '" + reportPath + "': " + e.what();
    return tr;
  }
  trace::ReadOptions ro;
  ro.allowTruncated = true;
  trace::ReadInfo info;
  auto t = trace::readTraceFile(tracePath, ro, &info);
  if (!t) {
    tr.status = kStatusError;
    tr.reason = t.error().message;
    return tr;
  }
  tr.truncated = info.truncated;
  tr.events = t->events.size();
  std::vector<nlohmann::json> details;
  auto fs = findingsFromReport(j, *t, &details);
  if (!fs) {
    tr.status = kStatusError;
    tr.reason = reportPath + ": " + fs.error().message;
    return tr;
  }
  tr.findings = fs->size();
  for (size_t i = 0; i < fs->size(); ++i) {
    TestFinding tf;
    tf.finding = std::move((*fs)[i]);
    tf.trace = tracePath;
    tf.replay = std::move(details[i]);
    findings.push_back(std::move(tf));
  }
  tr.unknown =
      j.contains("stats") ? j["stats"].value("unknown", size_t(0)) : size_t(0);
  if (tr.unknown) {
    tr.status = kStatusInconclusive;
    tr.reason = std::to_string(tr.unknown) + " solver quer" +
                (tr.unknown == 1 ? "y" : "ies") +
                " ended unknown (time-out or budget): not every pair was "
                "decided";
  }
  return tr;
}

TraceResult analyzeTrace(const std::string &tracePath, const StepConfig &cfg,
                         const Budget &budget,
                         std::vector<TestFinding> &findings) {
  TraceResult tr;
  tr.path = tracePath;
  std::string report = tracePath + ".report.json";
  std::string log = tracePath + ".analyze.log";
  ProcessSpec p;
  p.argv = {cfg.racepredict, "analyze", tracePath, "--format",
            "json",          "-o",      report,    "--allow-truncated"};
  p.argv.insert(p.argv.end(), cfg.analyzeFlags.begin(), cfg.analyzeFlags.end());
  p.env = environmentWith({});
  p.outputPath = log;
  p.deadline = budget.end;
  ProcessResult r = runProcess(p);
  if (r.status == ProcessResult::Status::TimedOut) {
    tr.status = kStatusTimeout;
    tr.reason = "analysis stopped: " + budget.why(cfg);
    return tr;
  }
  // analyze: 0 clean, 1 found, 4 inconclusive; 2 input error, 3 internal.
  bool reported = r.status == ProcessResult::Status::Exited &&
                  (r.exitCode == 0 || r.exitCode == 1 || r.exitCode == 4);
  if (!reported) {
    std::string msg = fileTail(log, 2000);
    while (!msg.empty() && msg.back() == '\n')
      msg.pop_back();
    tr.status = kStatusError;
    tr.reason = "racepredict analyze failed (" + r.describe() + ")" +
                (msg.empty() ? "" : ": " + msg);
    return tr;
  }
  return readReport(report, tracePath, findings);
}

Expected<std::string> testWorkDir(const TestSpec &spec, size_t index,
                                  const StepConfig &cfg) {
  std::string dir = (fs::path(cfg.workDir) /
                     (std::to_string(index) + "-" + fileSafeName(spec.name)))
                        .string();
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
  if (ec)
    return Error{"cannot create '" + dir + "': " + ec.message()};
  return dir;
}

namespace {

/// The runtime reads option values of at most 255 bytes.
constexpr size_t kMaxTracePattern = 255;

std::vector<std::string> tracesIn(const std::string &dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto &e : fs::directory_iterator(dir, ec)) {
    std::string n = e.path().filename().string();
    if (n.size() > 8 && n.compare(n.size() - 8, 8, ".rptrace") == 0)
      out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

void finishStatus(TestResult &res) {
  for (const auto &t : res.traces) {
    std::string worse = worseStatus(res.status, t.status);
    if (worse != res.status) {
      res.status = worse;
      res.reason = fs::path(t.path).filename().string() + ": " + t.reason;
    }
  }
}

/// The recorded path: every instrumented process of the test writes its own
/// trace, each is analysed; findings are predicted only.
void recordAndAnalyze(const TestSpec &spec, const std::string &dir,
                      const StepConfig &cfg, const Budget &budget,
                      TestResult &res) {
  std::string pattern = dir + "/" + fileSafeName(spec.name) + ".%p.rptrace";
  if (pattern.size() > kMaxTracePattern) {
    res.status = kStatusError;
    res.reason = "the trace path '" + pattern + "' is longer than the " +
                 std::to_string(kMaxTracePattern) +
                 " bytes RACEPREDICT_OPTIONS accepts: use a shorter "
                 "--work-dir";
    return;
  }
  // The test's own RACEPREDICT_OPTIONS (ENVIRONMENT property or inherited)
  // are kept; trace= comes last, and the runtime takes the last value.
  std::vector<std::string> overrides = spec.env;
  std::string opts = envValue(environmentWith(spec.env), "RACEPREDICT_OPTIONS");
  overrides.push_back("RACEPREDICT_OPTIONS=" +
                      (opts.empty() ? "" : opts + ":") + "trace=" + pattern);
  ProcessSpec p;
  p.argv = spec.command;
  p.cwd = spec.cwd;
  p.env = environmentWith(overrides);
  p.outputPath = dir + "/output.txt";
  p.deadline = budget.end;
  ProcessResult r = runProcess(p);
  res.outputTail = fileTail(p.outputPath, 4096);
  res.ran = r.describe();
  res.programFailed = !r.ok();
  if (r.status == ProcessResult::Status::SpawnFailed) {
    res.status = kStatusError;
    res.reason = r.error;
    return;
  }
  if (r.status == ProcessResult::Status::TimedOut) {
    // The runtime flushed on SIGTERM; the traces stay in the work
    // directory, but the budget is spent: not analysed, never "clean".
    res.status = kStatusTimeout;
    res.reason = "recording stopped: " + budget.why(cfg);
    return;
  }
  std::vector<std::string> traces = tracesIn(dir);
  if (traces.empty()) {
    if (r.ok()) {
      res.status = kStatusSkipped;
      res.reason = "no instrumented process ran (no trace was written; "
                   "build the test with racepredict-cc)";
    } else {
      res.status = kStatusError;
      res.reason = "the test failed (" + r.describe() +
                   ") before any instrumented process wrote a trace";
    }
    return;
  }
  // A crashed program's trace is analysed too: the runtime flushes its
  // buffers on fatal signals (docs/recording.md).
  for (const auto &t : traces) {
    if (Clock::now() >= budget.end) {
      TraceResult skipped;
      skipped.path = t;
      skipped.status = kStatusTimeout;
      skipped.reason = "not analysed: " + budget.why(cfg);
      res.traces.push_back(std::move(skipped));
      continue;
    }
    res.traces.push_back(analyzeTrace(t, cfg, budget, res.findings));
  }
}

} // namespace

TestResult runTestStep(const TestSpec &spec, size_t index,
                       const StepConfig &cfg, Clock::time_point budgetEnd) {
  auto start = Clock::now();
  TestResult res;
  res.spec = spec;
  Budget budget = stepBudget(cfg, start, budgetEnd);
  auto done = [&]() -> TestResult & {
    finishStatus(res);
    res.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return res;
  };
  if (!spec.skipReason.empty()) {
    res.status = kStatusSkipped;
    res.reason = spec.skipReason;
    return done();
  }
  if (!spec.trace.empty()) {
    // A recorded trace: analysis only, there is no program to replay.
    res.replayNote = "a recorded trace: there is no program to replay";
    res.traces.push_back(analyzeTrace(spec.trace, cfg, budget, res.findings));
    return done();
  }
  auto dir = testWorkDir(spec, index, cfg);
  if (!dir) {
    res.status = kStatusError;
    res.reason = dir.error().message;
    return done();
  }
  if (!cfg.replay) {
    res.replayNote = "replay is off (--no-replay)";
  } else {
    ReplayTarget target = replayTarget(spec);
    if (target.ok()) {
      runReplayed(spec, target.argv, *dir, cfg, budget, res);
      return done();
    }
    res.replayNote = target.reason +
                     "; replay re-runs one instrumented program, so each "
                     "process's trace is analysed and its findings are "
                     "predicted only";
  }
  recordAndAnalyze(spec, *dir, cfg, budget, res);
  if (res.traces.empty())
    res.replayNote.clear(); // nothing was analysed: nothing to qualify
  return done();
}

} // namespace racepredict::batch
