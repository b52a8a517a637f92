//===- batch/batch_report.cpp - Aggregate JSON, SARIF, baseline, summary --===//
#include "racepredict/batch/batch_report.h"

#include "racepredict/report/finding_sarif.h"
#include "racepredict/report/signature.h"

#include <map>
#include <ostream>
#include <set>

namespace racepredict::batch {

using json = nlohmann::ordered_json;

const char *const kConfirmationNote =
    "predicted: every finding comes with a witness schedule validated on "
    "the recorded trace's semantics; findings are not yet replay-confirmed "
    "in the program (status \"predicted\")";

json batchJson(const BatchRun &run) {
  Summary s = summarize(run.tests);
  json tests = json::array();
  for (const auto &t : run.tests) {
    json j = testResultJson(t);
    j["outcome"] = testOutcome(t);
    tests.push_back(std::move(j));
  }
  json j{{"tool", "racepredict"},
         {"kind", "batch"},
         {"schema_version", 1},
         {"version", run.version},
         {"input", run.input},
         {"executor", run.executor},
         {"source_root", run.sourceRoot},
         {"started", run.started},
         {"seconds", run.seconds},
         {"confirmation", kConfirmationNote},
         {"summary",
          {{"tests", s.tests},
           {"passed", s.passed},
           {"failed", s.failed},
           {"errors", s.errors},
           {"skipped", s.skipped},
           {"findings", s.findings},
           {"new", s.fresh},
           {"known", s.known},
           {"suppressed", s.suppressed},
           {"distinct_new", s.distinctNew}}},
         {"tests", tests}};
  if (run.suppressions) {
    json rules = json::array();
    for (size_t i = 0; i < run.suppressions->rules().size(); ++i) {
      const auto &r = run.suppressions->rules()[i];
      rules.push_back(
          {{"rule", r.text()},
           {"file", r.file},
           {"line", r.line},
           {"hits",
            i < run.suppressionHits.size() ? run.suppressionHits[i] : 0}});
    }
    j["suppressions"] = rules;
  }
  if (!run.baselinePath.empty())
    j["baseline"] = run.baselinePath;
  return j;
}

json batchSarif(const BatchRun &run) {
  // One result per signature; the first occurrence carries the witness.
  std::map<std::string, size_t> bySig;
  std::vector<const TestFinding *> firsts;
  std::vector<std::set<std::string>> tests, traces;
  for (const auto &t : run.tests)
    for (const auto &f : t.findings) {
      if (f.verdict == "suppressed")
        continue;
      auto [it, inserted] = bySig.emplace(f.signature, firsts.size());
      if (inserted) {
        firsts.push_back(&f);
        tests.emplace_back();
        traces.emplace_back();
      }
      tests[it->second].insert(t.spec.name);
      traces[it->second].insert(f.trace);
    }
  std::vector<report::SarifFinding> sf;
  for (size_t i = 0; i < firsts.size(); ++i) {
    json props{{"tests", tests[i]},
               {"traces", traces[i]},
               {"verdict", firsts[i]->verdict}};
    sf.push_back({&firsts[i]->finding, firsts[i]->signature, props});
  }
  report::SarifOptions opts;
  opts.version = run.version;
  opts.sourceRoot = run.sourceRoot;
  for (const auto &t : run.tests)
    if (t.status != kStatusOk && t.status != kStatusSkipped)
      opts.notifications.push_back(
          {"error", "test " + t.spec.name + ": " + t.status + ": " + t.reason});
  opts.executionSuccessful = opts.notifications.empty();
  opts.runProperties = {{"input", run.input},
                        {"confirmation", kConfirmationNote}};
  json sarif = report::sarifFromFindings(sf, opts);
  if (!run.baselinePath.empty()) {
    auto &results = sarif["runs"][0]["results"];
    for (size_t i = 0; i < results.size(); ++i)
      results[i]["baselineState"] =
          firsts[i]->verdict == "known" ? "unchanged" : "new";
  }
  return sarif;
}

report::Baseline baselineOf(const BatchRun &run) {
  report::Baseline b;
  for (const auto &t : run.tests)
    for (const auto &f : t.findings)
      if (f.verdict != "suppressed")
        b.add(f.signature, {report::findingKindName(f.finding.kind),
                            f.finding.message,
                            {t.spec.name}});
  return b;
}

void printSummary(const BatchRun &run, std::ostream &out) {
  Summary s = summarize(run.tests);
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.1f", run.seconds);
  out << "racepredict batch: " << s.tests << " test"
      << (s.tests == 1 ? "" : "s") << ": " << s.failed << " failed, "
      << s.passed << " passed, " << s.errors << " not fully analysed, "
      << s.skipped << " skipped; " << s.findings << " finding"
      << (s.findings == 1 ? "" : "s") << ": " << s.fresh << " new, " << s.known
      << " known, " << s.suppressed << " suppressed (" << secs << " s, "
      << run.executor << ")\n";
  for (const auto &t : run.tests) {
    for (const auto &f : t.findings)
      if (f.verdict == "new")
        out << "  NEW " << report::findingKindName(f.finding.kind) << " in "
            << t.spec.name << ": " << f.finding.message << "\n";
    if (t.status != kStatusOk && t.status != kStatusSkipped)
      out << "  " << t.status << ": " << t.spec.name << ": " << t.reason
          << "\n";
  }
  if (s.findings)
    out << "racepredict batch: findings are predicted (witness schedules "
           "validated on the traces), not replay-confirmed\n";
}

} // namespace racepredict::batch
