//===- batch/slurm.cpp - Chunks, the array job, merging partial results ---===//
#include "racepredict/batch/slurm.h"

#include "racepredict/batch/classify.h"
#include "racepredict/batch/process.h"
#include "racepredict/support/file_io.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

namespace racepredict::batch {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

std::string shellQuote(const std::string &s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::vector<std::vector<TestSpec>> chunkTests(const std::vector<TestSpec> &t,
                                              size_t chunkSize) {
  std::vector<std::vector<TestSpec>> out;
  size_t n = std::max<size_t>(1, chunkSize);
  for (size_t i = 0; i < t.size(); i += n)
    out.emplace_back(t.begin() + i, t.begin() + std::min(t.size(), i + n));
  return out;
}

std::string sbatchScript(const SlurmConfig &cfg) {
  std::string dir = cfg.workDir;
  std::string s = "#!/bin/sh\n"
                  "# Written by `racepredict batch --slurm`: array task I "
                  "analyses chunk-I.json.\n"
                  "set -e\n"
                  "i=\"$SLURM_ARRAY_TASK_ID\"\n"
                  "exec " +
                  shellQuote(cfg.racepredict) + " batch --specs " +
                  shellQuote(dir) + "/chunk-\"$i\".json --partial " +
                  shellQuote(dir) + "/partial-\"$i\".json --work-dir " +
                  shellQuote(dir) + "/task-\"$i\" --no-progress";
  for (const auto &a : cfg.taskArgs)
    s += " " + shellQuote(a);
  return s + "\n";
}

Expected<bool> writePartial(const std::string &path,
                            const std::vector<TestResult> &tests) {
  json arr = json::array();
  for (const auto &t : tests)
    arr.push_back(testResultJson(t));
  json j{{"tool", "racepredict"}, {"kind", "batch-partial"}, {"tests", arr}};
  // Write then rename: the submitter polls for the file and must never see
  // half of it.
  std::string tmp = path + ".tmp";
  if (auto w = writeWholeFile(tmp, "partial result", jsonText(j, -1) + "\n");
      !w)
    return w.error();
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec)
    return Error{"cannot rename '" + tmp + "': " + ec.message()};
  return true;
}

namespace {

Expected<nlohmann::json> readJson(const std::string &path, const char *kind) {
  std::ifstream in(path);
  if (!in)
    return Error{"cannot open '" + path + "'"};
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error &e) {
    return Error{path + ": not valid JSON: " + e.what()};
  }
  if (!j.is_object() || j.value("kind", "") != kind || !j.contains("tests") ||
      !j["tests"].is_array())
    return Error{path + ": not a racepredict " + kind + " file"};
  return j;
}

} // namespace

Expected<std::vector<TestResult>> readPartial(const std::string &path) {
  auto j = readJson(path, "batch-partial");
  if (!j)
    return j.error();
  std::vector<TestResult> out;
  for (const auto &t : (*j)["tests"]) {
    auto r = testResultFromJson(t);
    if (!r)
      return Error{path + ": " + r.error().message};
    out.push_back(std::move(*r));
  }
  return out;
}

Expected<std::vector<TestSpec>> readSpecs(const std::string &path) {
  auto j = readJson(path, "batch-chunk");
  if (!j)
    return j.error();
  std::vector<TestSpec> out;
  for (const auto &t : (*j)["tests"]) {
    auto s = specFromJson(t);
    if (!s)
      return Error{path + ": " + s.error().message};
    out.push_back(std::move(*s));
  }
  return out;
}

Expected<SlurmOutcome> runOnSlurm(const std::vector<TestSpec> &tests,
                                  const SlurmConfig &cfg, Progress &progress) {
  auto chunks = chunkTests(tests, cfg.chunkSize);
  std::error_code ec;
  fs::create_directories(cfg.workDir, ec);
  if (ec)
    return Error{"--slurm: cannot create '" + cfg.workDir +
                 "': " + ec.message()};
  for (size_t i = 0; i < chunks.size(); ++i) {
    json arr = json::array();
    for (const auto &s : chunks[i])
      arr.push_back(specJson(s));
    std::string path = cfg.workDir + "/chunk-" + std::to_string(i) + ".json";
    json chunk{
        {"tool", "racepredict"}, {"kind", "batch-chunk"}, {"tests", arr}};
    if (auto w = writeWholeFile(path, "Slurm chunk", jsonText(chunk, 1) + "\n");
        !w)
      return Error{"--slurm: " + w.error().message};
    fs::remove(cfg.workDir + "/partial-" + std::to_string(i) + ".json", ec);
  }
  std::string script = cfg.workDir + "/job.sh";
  if (auto w = writeWholeFile(script, "Slurm job script", sbatchScript(cfg));
      !w)
    return Error{"--slurm: " + w.error().message};
  ProcessSpec p;
  p.argv = {"sbatch",
            "--wait",
            "--parsable",
            "--array=0-" + std::to_string(chunks.size() - 1),
            "--job-name=racepredict-batch",
            "--output=" + cfg.workDir + "/slurm-%A_%a.out"};
  if (cfg.budgetEnd != Clock::time_point::max()) {
    // The job's own limit: the remaining budget plus a minute for start-up.
    double left =
        std::chrono::duration<double>(cfg.budgetEnd - Clock::now()).count();
    long minutes = std::max(1L, static_cast<long>(std::ceil(left / 60)) + 1);
    p.argv.push_back("--time=" + std::to_string(minutes));
    // Tasks enforce the budget themselves; give sbatch some slack.
    p.deadline = cfg.budgetEnd + std::chrono::seconds(120);
  }
  p.argv.insert(p.argv.end(), cfg.sbatchArgs.begin(), cfg.sbatchArgs.end());
  p.argv.push_back(script);
  p.cwd = cfg.workDir;
  p.env = environmentWith({});
  p.outputPath = cfg.workDir + "/sbatch.out";
  // sbatch --wait blocks until every task ended; meanwhile count the
  // partial results that appeared, for the progress line.
  auto waiting = std::async(std::launch::async, [&p] { return runProcess(p); });
  std::vector<bool> seen(chunks.size());
  size_t done = 0, findings = 0;
  auto poll = [&] {
    for (size_t i = 0; i < chunks.size(); ++i) {
      std::string path =
          cfg.workDir + "/partial-" + std::to_string(i) + ".json";
      if (seen[i] || !fs::exists(path))
        continue;
      seen[i] = true;
      done += chunks[i].size();
      if (auto part = readPartial(path))
        for (const auto &t : *part)
          findings += countedFindings(t);
    }
    progress.set(done, findings);
  };
  while (waiting.wait_for(std::chrono::milliseconds(500)) !=
         std::future_status::ready)
    poll();
  ProcessResult r = waiting.get();
  poll();
  std::string sbatchOut = fileTail(p.outputPath, 4000);
  SlurmOutcome outcome;
  outcome.tasks = chunks.size();
  // --parsable prints `JOBID[;CLUSTER]` on a line of its own (warnings
  // may come before it).
  for (size_t pos = 0; pos < sbatchOut.size();) {
    size_t nl = sbatchOut.find('\n', pos);
    std::string line = sbatchOut.substr(
        pos, nl == std::string::npos ? std::string::npos : nl - pos);
    std::string id = line.substr(0, line.find(';'));
    if (!id.empty() && id.find_first_not_of("0123456789") == std::string::npos)
      outcome.jobId = id;
    pos = nl == std::string::npos ? sbatchOut.size() : nl + 1;
  }
  if (r.status == ProcessResult::Status::SpawnFailed)
    return Error{"--slurm: " + r.error +
                 " (Slurm's client commands are needed: Debian slurm-client)"};
  if (r.status == ProcessResult::Status::TimedOut && !outcome.jobId.empty()) {
    ProcessSpec cancel;
    cancel.argv = {"scancel", outcome.jobId};
    cancel.env = p.env;
    cancel.deadline = Clock::now() + std::chrono::seconds(30);
    runProcess(cancel);
  }
  if (outcome.jobId.empty())
    return Error{"--slurm: sbatch did not submit the job (" + r.describe() +
                 "): " + sbatchOut};
  for (size_t i = 0; i < chunks.size(); ++i) {
    std::string path = cfg.workDir + "/partial-" + std::to_string(i) + ".json";
    auto part = readPartial(path);
    if (part && part->size() == chunks[i].size()) {
      for (auto &t : *part)
        outcome.tests.push_back(std::move(t));
      continue;
    }
    std::string log = cfg.workDir + "/slurm-" + outcome.jobId + "_" +
                      std::to_string(i) + ".out";
    std::string why = part ? "it has " + std::to_string(part->size()) +
                                 " results for " +
                                 std::to_string(chunks[i].size()) + " tests"
                           : part.error().message;
    std::string tail = fileTail(log, 1000);
    for (const auto &s : chunks[i]) {
      TestResult t;
      t.spec = s;
      t.status = kStatusError;
      t.reason = "Slurm array task " + std::to_string(i) + " of job " +
                 outcome.jobId + " left no usable result (" + why +
                 "; sbatch: " + r.describe() + "); its log " + log +
                 (tail.empty() ? " is empty" : " ends: " + tail);
      outcome.tests.push_back(std::move(t));
    }
  }
  return outcome;
}

} // namespace racepredict::batch
