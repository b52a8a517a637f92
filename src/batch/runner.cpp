//===- batch/runner.cpp - A worker pool over the per-test step ------------===//
#include "racepredict/batch/runner.h"

#include "racepredict/batch/classify.h"

#include <algorithm>
#include <atomic>
#include <thread>

namespace racepredict::batch {

std::vector<TestResult> runLocally(const std::vector<TestSpec> &tests,
                                   const RunnerConfig &cfg,
                                   Progress &progress) {
  std::vector<TestResult> results(tests.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next++) < tests.size();) {
      if (Clock::now() >= cfg.budgetEnd && tests[i].skipReason.empty()) {
        results[i].spec = tests[i];
        results[i].status = kStatusTimeout;
        results[i].reason =
            "not started: the whole-run budget (--budget) ran out";
      } else {
        results[i] = runTestStep(tests[i], i, cfg.step, cfg.budgetEnd);
      }
      progress.testDone(countedFindings(results[i]));
    }
  };
  unsigned n = std::max(
      1u, std::min<unsigned>(cfg.jobs, static_cast<unsigned>(tests.size())));
  std::vector<std::thread> pool;
  for (unsigned k = 0; k < n; ++k)
    pool.emplace_back(worker);
  for (auto &t : pool)
    t.join();
  return results;
}

} // namespace racepredict::batch
