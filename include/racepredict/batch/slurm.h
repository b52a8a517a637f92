//===- batch/slurm.h - Scale-out: one Slurm array task per chunk ----------===//
//
// `batch --slurm` writes the test list in chunks (chunk-I.json) to a work
// directory every node sees, submits ONE array job with one task per chunk
// (`sbatch --wait --array=0-K`), and each task runs
//   racepredict batch --specs chunk-$SLURM_ARRAY_TASK_ID.json
//                     --partial partial-$SLURM_ARRAY_TASK_ID.json …
// (the same per-test step as a local run). The submitting process then
// reads the partial results back and writes the usual outputs from them;
// a task that left no partial result turns its chunk's tests into errors
// that quote the task's log.
//
#pragma once

#include "racepredict/batch/progress.h"
#include "racepredict/batch/test_result.h"
#include "racepredict/batch/test_step.h"

#include <string>
#include <vector>

namespace racepredict::batch {

struct SlurmConfig {
  size_t chunkSize = 4;    ///< tests per array task
  std::string workDir;     ///< shared by the submitting host and nodes
  std::string racepredict; ///< the binary the tasks run
  std::vector<std::string> taskArgs;   ///< forwarded batch flags
  std::vector<std::string> sbatchArgs; ///< e.g. --partition=nightly
  Clock::time_point budgetEnd = Clock::time_point::max();
};

struct SlurmOutcome {
  std::vector<TestResult> tests; ///< in the order of the input
  std::string jobId;
  size_t tasks = 0;
};

/// Consecutive chunks of at most `chunkSize` tests (the last may be short).
std::vector<std::vector<TestSpec>> chunkTests(const std::vector<TestSpec> &t,
                                              size_t chunkSize);

/// The job script: a POSIX sh script whose task I runs chunk I.
std::string sbatchScript(const SlurmConfig &cfg);

/// Submits, waits, merges. Errors (no sbatch, submission refused) are
/// returned; failures of single tasks become test errors.
Expected<SlurmOutcome> runOnSlurm(const std::vector<TestSpec> &tests,
                                  const SlurmConfig &cfg, Progress &progress);

/// Writes a task's results (`--partial`); read back by readPartial.
Expected<bool> writePartial(const std::string &path,
                            const std::vector<TestResult> &tests);
Expected<std::vector<TestResult>> readPartial(const std::string &path);

/// Reads a chunk file written for a task (`--specs`).
Expected<std::vector<TestSpec>> readSpecs(const std::string &path);

/// `'…'` quoting for sh.
std::string shellQuote(const std::string &s);

} // namespace racepredict::batch
