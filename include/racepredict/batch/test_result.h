//===- batch/test_result.h - What one test (or one trace) yielded ---------===//
//
// The outcome of the per-test step, the unit every batch output is written
// from. It round-trips through JSON: a Slurm array task writes its chunk's
// results as partial JSON and the submitting process merges them.
//
#pragma once

#include "racepredict/batch/test_spec.h"
#include "racepredict/report/finding.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace racepredict::batch {

/// Status of a test or a trace, from best to worst: every status but `ok`
/// (and `skipped`) means the test was not fully analysed — never "clean".
///   ok            recorded and every trace fully analysed
///   skipped       not run: disabled, no instrumented process wrote a trace,
///                 or the whole-run budget ran out before it started
///   inconclusive  some solver query ended `unknown` (time-out, budget)
///   timeout       the test or its analysis ran past its time budget
///   error         the test could not run, or a trace could not be analysed
constexpr const char *kStatusOk = "ok";
constexpr const char *kStatusSkipped = "skipped";
constexpr const char *kStatusInconclusive = "inconclusive";
constexpr const char *kStatusTimeout = "timeout";
constexpr const char *kStatusError = "error";

/// The worse of two statuses (error > timeout > inconclusive > ok).
std::string worseStatus(const std::string &a, const std::string &b);

struct TraceResult {
  std::string path;
  std::string status = kStatusOk;
  std::string reason;
  size_t events = 0;
  bool truncated = false; ///< cut (killed program); analysed up to the cut
  size_t unknown = 0;     ///< solver queries that ended unknown
  size_t findings = 0;
};

struct TestFinding {
  /// Its `status` is "predicted" (not replayed), or the replay verdict:
  /// "confirmed", "diverged", "not-reproduced".
  report::Finding finding;
  std::string trace; ///< the trace it was predicted from
  /// `racepredict run`'s replay_detail (message, step, steps, location,
  /// variable, witness_file) plus "reproduce" (the command that replays
  /// it again); null when not replayed.
  nlohmann::json replay;
  // Set by classify() (batch/classify.h), not serialised by tasks.
  std::string signature;
  /// "new", "known" (baseline), "suppressed", or "unconfirmed" (replayed,
  /// but replay did not confirm it: never fails a test).
  std::string verdict;
  std::string suppressedBy; ///< `race:foo (supp.txt:3)`
  bool inBaseline = false;  ///< the baseline has its signature
  size_t duplicates = 0;    ///< same signature elsewhere in the test
};

struct TestResult {
  TestSpec spec;
  std::string status = kStatusOk;
  std::string reason; ///< why the status is not ok
  /// How the recorded program ended ("exit status 0", "signal 6 (Aborted)",
  /// "timed out after 60 s"); empty for trace inputs.
  std::string ran;
  bool programFailed = false; ///< non-zero exit or a signal
  double seconds = 0;
  std::vector<TraceResult> traces;
  std::vector<TestFinding> findings;
  /// The findings were replayed (`racepredict run`); else they are
  /// predicted only and `replayNote` says why (--no-replay, a trace input,
  /// a test that is not one instrumented program, a crash while recording).
  bool replayed = false;
  std::string replayNote;
  std::string outputTail; ///< the end of the test's stdout+stderr
};

nlohmann::ordered_json testResultJson(const TestResult &r);
Expected<TestResult> testResultFromJson(const nlohmann::json &j);

} // namespace racepredict::batch
