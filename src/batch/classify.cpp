//===- batch/classify.cpp - Signatures and verdicts of batch findings -----===//
#include "racepredict/batch/classify.h"

#include "racepredict/report/signature.h"

#include <map>
#include <set>

namespace racepredict::batch {

bool replayUnconfirmed(const report::Finding &f) {
  return f.status == "diverged" || f.status == "not-reproduced";
}

size_t countedFindings(const TestResult &t) {
  size_t n = 0;
  for (const auto &f : t.findings)
    n += !replayUnconfirmed(f.finding);
  return n;
}

std::vector<size_t> classify(std::vector<TestResult> &tests,
                             const ClassifyConfig &cfg) {
  std::vector<size_t> hits(cfg.suppressions ? cfg.suppressions->rules().size()
                                            : 0);
  for (auto &t : tests) {
    // One finding per signature; an occurrence that counts (confirmed, or
    // predicted without replay) stands for it over an unconfirmed one.
    std::vector<TestFinding> kept;
    std::map<std::string, size_t> bySig;
    for (auto &f : t.findings) {
      f.signature = report::findingSignature(f.finding, cfg.sourceRoot);
      auto [it, inserted] = bySig.emplace(f.signature, kept.size());
      if (inserted) {
        f.duplicates = 0;
        kept.push_back(std::move(f));
        continue;
      }
      TestFinding &k = kept[it->second];
      size_t dups = k.duplicates + 1;
      if (replayUnconfirmed(k.finding) && !replayUnconfirmed(f.finding))
        k = std::move(f);
      k.duplicates = dups;
    }
    for (auto &f : kept) {
      f.verdict = "new";
      f.suppressedBy.clear();
      f.inBaseline = cfg.baseline && cfg.baseline->contains(f.signature);
      if (cfg.suppressions)
        if (auto rule = cfg.suppressions->match(f.finding)) {
          const auto &r = cfg.suppressions->rules()[*rule];
          ++hits[*rule];
          f.verdict = "suppressed";
          f.suppressedBy =
              r.text() + " (" + r.file + ":" + std::to_string(r.line) + ")";
        }
      if (f.verdict == "new" && replayUnconfirmed(f.finding))
        f.verdict = "unconfirmed";
      else if (f.verdict == "new" && f.inBaseline)
        f.verdict = "known";
    }
    t.findings = std::move(kept);
  }
  return hits;
}

std::string testOutcome(const TestResult &t) {
  bool unconfirmed = false;
  for (const auto &f : t.findings) {
    if (f.verdict == "new")
      return "failed";
    unconfirmed |= f.verdict == "unconfirmed";
  }
  if (t.status == kStatusSkipped)
    return "skipped";
  if (t.status != kStatusOk)
    return "error";
  // Predicted, replayed, never confirmed: the test did not pass.
  return unconfirmed ? "unconfirmed" : "passed";
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
    else if (o == "unconfirmed")
      ++s.unconfirmedTests;
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
      } else if (f.verdict == "unconfirmed") {
        ++s.unconfirmed;
      }
      if (f.finding.status == "confirmed")
        ++s.confirmed;
    }
  }
  s.distinctNew = newSigs.size();
  return s;
}

} // namespace racepredict::batch
