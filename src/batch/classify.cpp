//===- batch/classify.cpp - Signatures and verdicts of batch findings -----===//
#include "racepredict/batch/classify.h"

#include "racepredict/report/signature.h"

#include <map>
#include <set>

namespace racepredict::batch {

std::vector<size_t> classify(std::vector<TestResult> &tests,
                             const ClassifyConfig &cfg) {
  std::vector<size_t> hits(cfg.suppressions ? cfg.suppressions->rules().size()
                                            : 0);
  for (auto &t : tests) {
    std::vector<TestFinding> kept;
    std::map<std::string, size_t> bySig;
    for (auto &f : t.findings) {
      f.signature = report::findingSignature(f.finding, cfg.sourceRoot);
      auto it = bySig.find(f.signature);
      if (it != bySig.end()) {
        ++kept[it->second].duplicates;
        continue;
      }
      f.verdict = "new";
      f.suppressedBy.clear();
      if (cfg.suppressions)
        if (auto rule = cfg.suppressions->match(f.finding)) {
          const auto &r = cfg.suppressions->rules()[*rule];
          ++hits[*rule];
          f.verdict = "suppressed";
          f.suppressedBy =
              r.text() + " (" + r.file + ":" + std::to_string(r.line) + ")";
        }
      if (f.verdict == "new" && cfg.baseline &&
          cfg.baseline->contains(f.signature))
        f.verdict = "known";
      bySig[f.signature] = kept.size();
      kept.push_back(std::move(f));
    }
    t.findings = std::move(kept);
  }
  return hits;
}

std::string testOutcome(const TestResult &t) {
  for (const auto &f : t.findings)
    if (f.verdict == "new")
      return "failed";
  if (t.status == kStatusSkipped)
    return "skipped";
  if (t.status != kStatusOk)
    return "error";
  return "passed";
}

Summary summarize(const std::vector<TestResult> &tests) {
  Summary s;
  std::set<std::string> newSigs;
  for (const auto &t : tests) {
    ++s.tests;
    std::string o = testOutcome(t);
    if (o == "failed")
      ++s.failed;
    else if (o == "error")
      ++s.errors;
    else if (o == "skipped")
      ++s.skipped;
    else
      ++s.passed;
    for (const auto &f : t.findings) {
      ++s.findings;
      if (f.verdict == "new") {
        ++s.fresh;
        newSigs.insert(f.signature);
      } else if (f.verdict == "known") {
        ++s.known;
      } else if (f.verdict == "suppressed") {
        ++s.suppressed;
      }
    }
  }
  s.distinctNew = newSigs.size();
  return s;
}

} // namespace racepredict::batch
