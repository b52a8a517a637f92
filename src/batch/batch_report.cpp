//===- batch/batch_report.cpp - Aggregate JSON, SARIF, baseline, summary --===//
#include "racepredict/batch/batch_report.h"

#include "racepredict/report/finding_sarif.h"
#include "racepredict/report/signature.h"

#include <map>
#include <ostream>
#include <set>

namespace racepredict::batch {

using json = nlohmann::ordered_json;

std::string confirmationNote(const BatchRun &run) {
  if (!run.replay)
    return "predicted: every finding comes with a witness schedule "
           "validated on the recorded trace's semantics; nothing was "
           "replayed (" +
           std::string(run.input.rfind("traces ", 0) == 0
                           ? "recorded traces: there is no program to replay"
                           : "--no-replay") +
           "), so every finding has status \"predicted\" and counts";
  return "replay-confirmed: each test that is one instrumented program was "
         "recorded, analysed and every finding replayed in the program under "
         "its witness schedule (racepredict run); confirmed findings count, "
         "diverged and not-reproduced ones are listed as unconfirmed: they "
         "fail nothing, but a test with them does not pass (outcome "
         "unconfirmed); tests that could not be replayed say why, and their "
         "findings (status \"predicted\": witness validated on the trace) "
         "count";
}

namespace {

/// Which occurrence of a signature represents it in SARIF: one that counts
/// (new, known) before an unconfirmed one; the first among equals.
int rank(const TestFinding &f) {
  return f.verdict == "new" ? 0 : f.verdict == "known" ? 1 : 2;
}

} // namespace

std::string findingStatusText(const TestFinding &f) {
  const std::string &st = f.finding.status;
  if (st == "predicted")
    return "predicted, not replayed";
  std::string msg = f.replay.is_object()
                        ? f.replay.value("message", std::string())
                        : std::string();
  return "replay " + st + (msg.empty() ? "" : ": " + msg);
}

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
         {"replay", run.replay},
         {"confirmation", confirmationNote(run)},
         {"summary",
          {{"tests", s.tests},
           {"passed", s.passed},
           {"failed", s.failed},
           {"errors", s.errors},
           {"skipped", s.skipped},
           {"unconfirmed_tests", s.unconfirmedTests},
           {"findings", s.findings},
           {"new", s.fresh},
           {"known", s.known},
           {"suppressed", s.suppressed},
           {"unconfirmed", s.unconfirmed},
           {"confirmed", s.confirmed},
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
  // One result per signature, represented by its best occurrence (which
  // carries the witness).
  std::map<std::string, size_t> bySig;
  std::vector<const TestFinding *> reps;
  std::vector<std::set<std::string>> tests, traces;
  for (const auto &t : run.tests)
    for (const auto &f : t.findings) {
      if (f.verdict == "suppressed")
        continue;
      auto [it, inserted] = bySig.emplace(f.signature, reps.size());
      if (inserted) {
        reps.push_back(&f);
        tests.emplace_back();
        traces.emplace_back();
      } else if (rank(f) < rank(*reps[it->second])) {
        reps[it->second] = &f;
      }
      tests[it->second].insert(t.spec.name);
      traces[it->second].insert(f.trace);
    }
  std::vector<report::SarifFinding> sf;
  for (size_t i = 0; i < reps.size(); ++i) {
    json props{{"tests", tests[i]},
               {"traces", traces[i]},
               {"verdict", reps[i]->verdict}};
    if (reps[i]->replay.is_object())
      props["replay"] = reps[i]->replay;
    sf.push_back({&reps[i]->finding, reps[i]->signature, props});
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
                        {"replay", run.replay},
                        {"confirmation", confirmationNote(run)}};
  json sarif = report::sarifFromFindings(sf, opts);
  auto &results = sarif["runs"][0]["results"];
  for (size_t i = 0; i < results.size(); ++i) {
    const TestFinding &f = *reps[i];
    // Unconfirmed: a warning that says why, never an error.
    if (f.verdict == "unconfirmed") {
      results[i]["level"] = "warning";
      results[i]["message"]["text"] =
          f.finding.message + " (unconfirmed: " + findingStatusText(f) + ")";
    } else if (f.finding.status == "confirmed") {
      results[i]["message"]["text"] =
          f.finding.message + " (confirmed by replay)";
    }
    if (!run.baselinePath.empty())
      results[i]["baselineState"] = f.inBaseline ? "unchanged" : "new";
  }
  return sarif;
}

report::Baseline baselineOf(const BatchRun &run) {
  report::Baseline b;
  for (const auto &t : run.tests)
    for (const auto &f : t.findings)
      if (f.verdict == "new" || f.verdict == "known")
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
      << s.passed << " passed, " << s.unconfirmedTests << " unconfirmed, "
      << s.errors << " not fully analysed, " << s.skipped << " skipped; "
      << s.findings << " finding" << (s.findings == 1 ? "" : "s") << ": "
      << s.fresh << " new, " << s.known << " known, " << s.suppressed
      << " suppressed, " << s.unconfirmed << " unconfirmed by replay (" << secs
      << " s, " << run.executor << ")\n";
  for (const auto &t : run.tests) {
    for (const auto &f : t.findings)
      if (f.verdict == "new")
        out << "  NEW " << report::findingKindName(f.finding.kind) << " in "
            << t.spec.name << " ("
            << (f.finding.status == "confirmed" ? "confirmed by replay"
                                                : "predicted, not replayed")
            << "): " << f.finding.message << "\n";
    for (const auto &f : t.findings)
      if (f.verdict == "unconfirmed")
        out << "  UNCONFIRMED " << report::findingKindName(f.finding.kind)
            << " in " << t.spec.name << " (" << findingStatusText(f)
            << "): " << f.finding.message << "\n";
    if (t.status != kStatusOk && t.status != kStatusSkipped)
      out << "  " << t.status << ": " << t.spec.name << ": " << t.reason
          << "\n";
  }
  size_t notReplayed = 0;
  for (const auto &t : run.tests)
    notReplayed += !t.replayed && !t.findings.empty();
  if (!run.replay && s.findings)
    out << "racepredict batch: findings are predicted (witness schedules "
           "validated on the traces), not replayed\n";
  else if (notReplayed)
    out << "racepredict batch: " << notReplayed << " test"
        << (notReplayed == 1 ? "" : "s")
        << " with findings could not be replayed (their findings are "
           "predicted; the JSON and JUnit reports say why)\n";
}

} // namespace racepredict::batch
