//===- tools/racepredict/cmd_batch.cpp - `racepredict batch` --------------===//
//
// Nightly regression over a test suite: discover the tests (CTest, a file
// of commands, or recorded traces), run the per-test step on each (record,
// analyse, replay-confirm; batch/test_step.h) in parallel or as Slurm array
// tasks, classify the findings (suppressed / unconfirmed by replay / known
// in the baseline / new) and write JUnit, SARIF and JSON. Exit status: 0
// nothing new and every test fully analysed, 1 new findings, 2 usage or
// input error, 4 nothing new but some test not fully analysed (time-out,
// error, unknown solver queries) or unconfirmed (predicted findings that
// replay did not confirm).
//
#include "commands.h"

#include "racepredict/batch/batch_report.h"
#include "racepredict/batch/runner.h"
#include "racepredict/batch/slurm.h"
#include "racepredict/support/file_io.h"

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <thread>
#include <unistd.h>

namespace racepredict::tool {
namespace {

namespace fs = std::filesystem;
using batch::Clock;

struct BatchArgs {
  std::string ctest, commands, traces, specs, partial;
  std::string include, exclude;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  double testTimeout = 600, budget = 0;
  bool races = false, deadlocks = false, allPairs = false;
  std::vector<std::string> properties; ///< --property files
  unsigned timeoutMs = 30000;
  uint64_t rlimit = 0;
  bool noReplay = false;
  unsigned stepTimeoutMs = 0; ///< 0: run's default
  double replayTimeout = 0;   ///< 0: run's default
  std::string junit, sarif, json, sourceRoot, suppressions, baseline,
      writeBaseline, workDir;
  int progress = 0; ///< 1 --progress, -1 --no-progress, 0 auto (TTY)
  bool slurm = false;
  size_t slurmChunk = 4;
  std::vector<std::string> sbatchArgs;
};

int fail(const std::string &msg) {
  std::cerr << "racepredict batch: " << msg << "\n";
  return kExitInput;
}

/// CMAKE_HOME_DIRECTORY of a CMake build directory: the sources' root.
std::string cmakeSourceDir(const std::string &buildDir) {
  std::ifstream in(fs::path(buildDir) / "CMakeCache.txt");
  std::string line, key = "CMAKE_HOME_DIRECTORY:INTERNAL=";
  while (std::getline(in, line))
    if (line.compare(0, key.size(), key) == 0)
      return line.substr(key.size());
  return "";
}

std::string nowIso8601() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string makeTempDir(const std::string &parent) {
  std::string tmpl = parent + "/racepredict-batch-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  return mkdtemp(buf.data()) ? std::string(buf.data()) : "";
}

bool writeText(const std::string &path, const std::string &text) {
  auto w = writeWholeFile(path, "report", text);
  if (!w)
    std::cerr << "racepredict batch: " << w.error().message << "\n";
  return static_cast<bool>(w);
}

/// `analyze` flags every test's analysis gets (and Slurm tasks forward).
std::vector<std::string> analyzeFlags(const BatchArgs &a) {
  std::vector<std::string> f;
  if (a.races)
    f.push_back("--races");
  if (a.deadlocks)
    f.push_back("--deadlocks");
  if (a.allPairs)
    f.push_back("--all-pairs");
  // Absolute: each test runs in its own working directory.
  for (const std::string &p : a.properties)
    f.insert(f.end(), {"--property", fs::absolute(p).string()});
  if (a.timeoutMs)
    f.insert(f.end(), {"--timeout-ms", std::to_string(a.timeoutMs)});
  if (a.rlimit)
    f.insert(f.end(), {"--rlimit", std::to_string(a.rlimit)});
  // Tests already run a core each: one solver thread per analysis (a
  // Slurm task has its node's cores to itself).
  if (a.jobs > 1 && !a.slurm)
    f.insert(f.end(), {"-j", "1"});
  return f;
}

/// `run` flags of the replays (and Slurm tasks forward them).
std::vector<std::string> replayFlags(const BatchArgs &a) {
  std::vector<std::string> f;
  if (a.stepTimeoutMs)
    f.insert(f.end(), {"--step-timeout-ms", std::to_string(a.stepTimeoutMs)});
  if (a.replayTimeout > 0)
    f.insert(f.end(), {"--replay-timeout", std::to_string(a.replayTimeout)});
  return f;
}

Expected<std::vector<batch::TestSpec>> discover(const BatchArgs &a,
                                                std::string &input) {
  if (!a.ctest.empty()) {
    input = "ctest " + fs::absolute(a.ctest).string();
    return batch::discoverCTest(a.ctest);
  }
  if (!a.commands.empty()) {
    input = "commands " + fs::absolute(a.commands).string();
    return batch::parseCommandsFile(a.commands);
  }
  if (!a.traces.empty()) {
    input = "traces " + fs::absolute(a.traces).string();
    return batch::listTraceDir(a.traces);
  }
  input = "specs " + a.specs;
  return batch::readSpecs(a.specs);
}

int runBatch(const BatchArgs &a) {
  auto started = Clock::now();
  int inputs = !a.ctest.empty() + !a.commands.empty() + !a.traces.empty() +
               !a.specs.empty();
  if (inputs != 1)
    return fail("give exactly one input: --ctest DIR, --commands FILE or "
                "--traces DIR");
  if (a.specs.empty() != a.partial.empty())
    return fail("--specs and --partial go together (they are what a Slurm "
                "array task runs)");
  std::error_code ec;
  std::string self = fs::read_symlink("/proc/self/exe", ec).string();
  if (ec)
    return fail("cannot find the racepredict binary (/proc/self/exe): " +
                ec.message());
  std::string input;
  auto found = discover(a, input);
  if (!found)
    return fail(found.error().message);
  auto tests = batch::filterTests(std::move(*found), a.include, a.exclude);
  if (!tests)
    return fail(tests.error().message);
  if (tests->empty())
    return fail("no tests to run in " + input +
                (a.include.empty() && a.exclude.empty()
                     ? ""
                     : " (after -R/--tests-regex and -E/--exclude-regex)"));

  // Everything that can be wrong with the input is checked before any
  // test runs: a nightly job should not fail after an hour on a typo.
  report::Suppressions supp;
  if (!a.suppressions.empty()) {
    auto s = report::Suppressions::load(a.suppressions);
    if (!s)
      return fail(s.error().message);
    for (const std::string &w : s->warnings())
      std::cerr << "racepredict batch: " << w << "\n";
    supp = std::move(*s);
  }
  report::Baseline base;
  if (!a.baseline.empty()) {
    auto b = report::Baseline::load(a.baseline);
    if (!b)
      return fail(b.error().message);
    base = std::move(*b);
  }
  std::string sourceRoot = a.sourceRoot;
  if (sourceRoot.empty() && !a.ctest.empty())
    sourceRoot = cmakeSourceDir(a.ctest);
  if (sourceRoot.empty())
    sourceRoot = fs::current_path().string();
  sourceRoot = fs::absolute(sourceRoot).lexically_normal().string();

  bool keepWorkDir = !a.workDir.empty();
  std::string workDir = a.workDir;
  if (workDir.empty()) {
    const char *tmp = std::getenv("TMPDIR");
    // Slurm tasks need a directory the nodes share: the current one.
    workDir = makeTempDir(a.slurm       ? fs::current_path().string()
                          : tmp && *tmp ? tmp
                                        : "/tmp");
    if (workDir.empty())
      return fail("cannot create a work directory (use --work-dir DIR)");
  }
  fs::create_directories(workDir, ec);
  workDir = fs::absolute(workDir).lexically_normal().string();

  batch::RunnerConfig rc;
  rc.jobs = a.jobs;
  rc.step.racepredict = self;
  rc.step.analyzeFlags = analyzeFlags(a);
  rc.step.replay = !a.noReplay;
  rc.step.replayFlags = replayFlags(a);
  rc.step.workDir = workDir;
  rc.step.testTimeout = a.testTimeout;
  if (a.budget > 0)
    rc.budgetEnd = started + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(a.budget));

  bool task = !a.specs.empty();
  bool showProgress =
      !task && (a.progress > 0 ||
                (a.progress == 0 && batch::Progress::stderrIsTerminal()));
  batch::Progress progress(showProgress, tests->size());

  batch::BatchRun run;
  run.input = input;
  run.replay = !a.noReplay && a.traces.empty();
  run.sourceRoot = sourceRoot;
  run.started = nowIso8601();
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  run.hostname = host;
  if (a.slurm) {
    batch::SlurmConfig sc;
    sc.chunkSize = a.slurmChunk;
    sc.workDir = workDir;
    sc.racepredict = self;
    sc.sbatchArgs = a.sbatchArgs;
    sc.budgetEnd = rc.budgetEnd;
    sc.taskArgs = rc.step.analyzeFlags;
    sc.taskArgs.insert(sc.taskArgs.end(), rc.step.replayFlags.begin(),
                       rc.step.replayFlags.end());
    if (a.noReplay)
      sc.taskArgs.push_back("--no-replay");
    sc.taskArgs.insert(sc.taskArgs.end(),
                       {"-j", std::to_string(a.jobs), "--test-timeout",
                        std::to_string(a.testTimeout)});
    if (a.budget > 0)
      sc.taskArgs.insert(sc.taskArgs.end(),
                         {"--budget", std::to_string(a.budget)});
    auto out = batch::runOnSlurm(*tests, sc, progress);
    if (!out) {
      progress.finish();
      return fail(out.error().message);
    }
    run.tests = std::move(out->tests);
    run.executor = "slurm job " + out->jobId + ", " +
                   std::to_string(out->tasks) + " array task" +
                   (out->tasks == 1 ? "" : "s");
  } else {
    run.tests = batch::runLocally(*tests, rc, progress);
    run.executor = "local, -j " + std::to_string(a.jobs);
  }
  progress.finish();

  if (task) {
    // A Slurm array task: raw results for the submitter to merge.
    auto w = batch::writePartial(a.partial, run.tests);
    if (!w)
      return fail(w.error().message);
    return kExitClean;
  }
  batch::ClassifyConfig cc;
  cc.suppressions = a.suppressions.empty() ? nullptr : &supp;
  cc.baseline = a.baseline.empty() ? nullptr : &base;
  cc.sourceRoot = sourceRoot;
  run.suppressionHits = batch::classify(run.tests, cc);
  run.suppressions = cc.suppressions;
  run.baselinePath = a.baseline;
  run.seconds = std::chrono::duration<double>(Clock::now() - started).count();

  bool wrote = true;
  if (!a.junit.empty())
    wrote &= writeText(a.junit, batch::junitXml(run));
  if (!a.sarif.empty())
    wrote &= writeText(a.sarif, jsonText(batch::batchSarif(run)) + "\n");
  if (!a.json.empty())
    wrote &= writeText(a.json, jsonText(batch::batchJson(run)) + "\n");
  if (!a.writeBaseline.empty()) {
    auto w = batch::baselineOf(run).write(a.writeBaseline);
    if (!w) {
      std::cerr << "racepredict batch: " << w.error().message << "\n";
      wrote = false;
    }
  }
  batch::printSummary(run, std::cout);
  if (!keepWorkDir)
    fs::remove_all(workDir, ec);
  if (!wrote)
    return kExitInput;
  batch::Summary s = batch::summarize(run.tests);
  if (s.fresh)
    return kExitFound;
  if (s.unconfirmedTests)
    return kExitInconclusive;
  for (const auto &t : run.tests)
    if (t.status != batch::kStatusOk && t.status != batch::kStatusSkipped)
      return kExitInconclusive;
  return kExitClean;
}

} // namespace

void addBatchCommand(CLI::App &app, int &exitCode) {
  auto a = std::make_shared<BatchArgs>();
  CLI::App *cmd = app.add_subcommand(
      "batch", "Record, analyse and replay-confirm a whole test suite "
               "(CTest, a file of commands, or recorded traces) and write "
               "JUnit, SARIF and JSON; report only findings that are new");
  auto *in = cmd->add_option_group("input", "Exactly one of");
  in->add_option("--ctest", a->ctest,
                 "A CTest build directory: run every test's command with its "
                 "WORKING_DIRECTORY and ENVIRONMENT");
  in->add_option("--commands", a->commands,
                 "A file with one test per line: [NAME] SHELL COMMAND");
  in->add_option("--traces", a->traces,
                 "A directory of recorded traces (*.rptrace, *.rpt.txt)");
  in->add_option("--specs", a->specs,
                 "(Slurm array tasks) a chunk of tests written by --slurm");
  cmd->add_option("--partial", a->partial,
                  "(Slurm array tasks) write raw results here");
  cmd->add_option("-R,--tests-regex", a->include,
                  "Only tests whose name matches this regex");
  cmd->add_option("-E,--exclude-regex", a->exclude,
                  "Skip tests whose name matches this regex");
  cmd->add_option("-j,--jobs", a->jobs, "Tests run at once (default: cores)")
      ->check(CLI::Range(1u, 1024u));
  cmd->add_option("--test-timeout", a->testTimeout,
                  "Seconds per test for recording, analysis and replays (0: "
                  "none; default 600)")
      ->check(CLI::Range(0.0, 1e7));
  cmd->add_option("--budget", a->budget,
                  "Seconds for the whole run (0: none); what does not finish "
                  "is reported as timed out")
      ->check(CLI::Range(0.0, 1e7));
  cmd->add_flag("--races", a->races,
                "Predict data races (the default unless only --deadlocks)");
  cmd->add_flag("--deadlocks", a->deadlocks, "Predict lock-order deadlocks");
  cmd->add_option("--property", a->properties,
                  "Predict (and replay-confirm) violations of the custom "
                  "properties in this file (docs/properties.md); repeatable")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--all-pairs", a->allPairs,
                "Every racing event pair, not one per source-location pair");
  cmd->add_option("--timeout-ms", a->timeoutMs,
                  "Per solver query (default 30000; 0: none); a time-out "
                  "makes the test inconclusive");
  cmd->add_option("--rlimit", a->rlimit, "Per-query Z3 rlimit");
  cmd->add_flag("--no-replay", a->noReplay,
                "Do not replay: every finding is predicted only and counts "
                "(default: replay-confirm the findings of every test that is "
                "one instrumented program, with `racepredict run`)");
  cmd->add_option("--step-timeout-ms", a->stepTimeoutMs,
                  "How long one replay step may take before that replay "
                  "ends as diverged (run's default: 3000)");
  cmd->add_option("--replay-timeout", a->replayTimeout,
                  "Kill a replayed program after this many seconds (run's "
                  "default: 60)")
      ->check(CLI::Range(0.0, 1e7));
  cmd->add_option("--junit", a->junit, "Write JUnit XML here");
  cmd->add_option("--sarif", a->sarif, "Write SARIF 2.1.0 here");
  cmd->add_option("--json", a->json, "Write the aggregate JSON report here");
  cmd->add_option("--source-root", a->sourceRoot,
                  "Repository root: SARIF URIs and signatures are relative "
                  "to it (default: the CTest project's source directory, "
                  "else the current directory)");
  cmd->add_option("--suppressions", a->suppressions,
                  "TSan-style rules: race:PATTERN, deadlock:PATTERN, "
                  "property:NAME");
  cmd->add_option("--baseline", a->baseline,
                  "Report only findings whose signature is not in this "
                  "baseline");
  cmd->add_option("--write-baseline", a->writeBaseline,
                  "Write the signatures of this run's findings here");
  cmd->add_option("--work-dir", a->workDir,
                  "Keep traces, reports, witness files and test output here "
                  "(default: a temporary directory, removed)");
  cmd->add_flag("--progress,!--no-progress", a->progress,
                "Progress line on stderr (default: when it is a terminal)");
  cmd->add_flag("--slurm", a->slurm,
                "Run the tests as one Slurm array job, a task per chunk");
  cmd->add_option("--slurm-chunk-size", a->slurmChunk,
                  "Tests per Slurm array task (default 4)")
      ->check(CLI::Range(size_t(1), size_t(1) << 20));
  cmd->add_option("--sbatch-arg", a->sbatchArgs,
                  "Extra sbatch argument (repeatable), e.g. "
                  "--sbatch-arg=--partition=nightly");
  cmd->callback([a, &exitCode]() { exitCode = runBatch(*a); });
}

} // namespace racepredict::tool
