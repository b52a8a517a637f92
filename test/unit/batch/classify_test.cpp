//===- classify_test.cpp - New/known/suppressed/unconfirmed, outcomes -----===//
#include "racepredict/batch/classify.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace racepredict;
using namespace racepredict::batch;

namespace {

report::Finding race(const std::string &fa, uint32_t la, const char *fna,
                     const std::string &fb, uint32_t lb, const char *fnb) {
  report::Finding f;
  f.kind = report::FindingKind::Race;
  f.object = "x";
  report::Site a, b;
  a.file = fa;
  a.line = la;
  a.function = fna;
  a.op = "wr";
  b.file = fb;
  b.line = lb;
  b.function = fnb;
  b.op = "rd";
  f.sites = {a, b};
  return f;
}

TestFinding tf(report::Finding f, const char *trace,
               const char *status = "predicted") {
  TestFinding t;
  t.finding = std::move(f);
  t.finding.status = status;
  t.trace = trace;
  return t;
}

report::Suppressions supp(const std::string &text) {
  std::istringstream in(text);
  auto s = report::Suppressions::parse(in, "s.txt");
  EXPECT_TRUE(static_cast<bool>(s));
  return s ? std::move(*s) : report::Suppressions();
}

} // namespace

TEST(Classify, VerdictsDedupAndHits) {
  std::vector<TestResult> tests(2);
  tests[0].spec.name = "one";
  // The same race from two processes of one test: kept once.
  tests[0].findings.push_back(
      tf(race("/r/src/a.c", 3, "main", "/r/src/a.c", 9, "worker"), "p1"));
  tests[0].findings.push_back(
      tf(race("/r/src/a.c", 9, "worker", "/r/src/a.c", 3, "main"), "p2"));
  tests[0].findings.push_back(
      tf(race("/r/src/legacy.c", 1, "old", "/r/src/legacy.c", 2, "old"), "p1"));
  tests[1].spec.name = "two";
  tests[1].findings.push_back(
      tf(race("/r/src/b.c", 5, "f", "/r/src/b.c", 6, "g"), "p3"));
  report::Suppressions s = supp("race:legacy.c\nrace:nothing\n");
  report::Baseline base;
  base.add("race|src/b.c:5:f|src/b.c:6:g", {});
  ClassifyConfig cfg{&s, &base, "/r"};
  std::vector<size_t> hits = classify(tests, cfg);
  EXPECT_EQ(hits, (std::vector<size_t>{1, 0}));
  ASSERT_EQ(tests[0].findings.size(), 2u);
  EXPECT_EQ(tests[0].findings[0].signature,
            "race|src/a.c:3:main|src/a.c:9:worker");
  EXPECT_EQ(tests[0].findings[0].verdict, "new");
  EXPECT_EQ(tests[0].findings[0].duplicates, 1u);
  EXPECT_EQ(tests[0].findings[1].verdict, "suppressed");
  EXPECT_EQ(tests[0].findings[1].suppressedBy, "race:legacy.c (s.txt:1)");
  EXPECT_EQ(tests[1].findings[0].verdict, "known");
  EXPECT_EQ(testOutcome(tests[0]), "failed");
  EXPECT_EQ(testOutcome(tests[1]), "passed");
  Summary sum = summarize(tests);
  EXPECT_EQ(sum.tests, 2u);
  EXPECT_EQ(sum.failed, 1u);
  EXPECT_EQ(sum.passed, 1u);
  EXPECT_EQ(sum.findings, 3u);
  EXPECT_EQ(sum.fresh, 1u);
  EXPECT_EQ(sum.known, 1u);
  EXPECT_EQ(sum.suppressed, 1u);
  EXPECT_EQ(sum.distinctNew, 1u);
}

TEST(Classify, UnconfirmedByReplayNeverFailsNorPasses) {
  std::vector<TestResult> tests(1);
  tests[0].spec.name = "t";
  auto &fs = tests[0].findings;
  fs.push_back(tf(race("/r/a.c", 1, "f", "/r/a.c", 2, "g"), "p", "confirmed"));
  fs.push_back(tf(race("/r/b.c", 1, "f", "/r/b.c", 2, "g"), "p", "diverged"));
  fs.push_back(
      tf(race("/r/c.c", 1, "f", "/r/c.c", 2, "g"), "p", "not-reproduced"));
  // In the baseline, but unconfirmed tonight: listed as unconfirmed.
  fs.push_back(tf(race("/r/d.c", 1, "f", "/r/d.c", 2, "g"), "p", "diverged"));
  // Suppressed wins over unconfirmed.
  fs.push_back(tf(race("/r/e.c", 1, "f", "/r/e.c", 2, "g"), "p", "diverged"));
  report::Suppressions s = supp("race:e.c\n");
  report::Baseline base;
  base.add("race|d.c:1:f|d.c:2:g", {});
  ClassifyConfig cfg{&s, &base, "/r"};
  classify(tests, cfg);
  std::vector<std::string> verdicts;
  for (const auto &f : fs)
    verdicts.push_back(f.verdict);
  EXPECT_EQ(verdicts,
            (std::vector<std::string>{"new", "unconfirmed", "unconfirmed",
                                      "unconfirmed", "suppressed"}));
  EXPECT_FALSE(fs[1].inBaseline);
  EXPECT_TRUE(fs[3].inBaseline);
  EXPECT_EQ(countedFindings(tests[0]), 1u);
  Summary sum = summarize(tests);
  EXPECT_EQ(sum.fresh, 1u);
  EXPECT_EQ(sum.unconfirmed, 3u);
  EXPECT_EQ(sum.suppressed, 1u);
  EXPECT_EQ(sum.confirmed, 1u);
  EXPECT_EQ(testOutcome(tests[0]), "failed");
  // Without the confirmed one nothing fails the test, but it does not pass
  // either: findings were predicted and none was confirmed.
  fs.erase(fs.begin());
  classify(tests, cfg);
  EXPECT_EQ(testOutcome(tests[0]), "unconfirmed");
  sum = summarize(tests);
  EXPECT_EQ(sum.unconfirmedTests, 1u);
  EXPECT_EQ(sum.passed, 0u);
  EXPECT_EQ(sum.failed, 0u);
  // Only suppressed findings left: it passes.
  fs.erase(fs.begin(), fs.begin() + 3);
  classify(tests, cfg);
  EXPECT_EQ(testOutcome(tests[0]), "passed");
}

TEST(Classify, AConfirmedOccurrenceStandsForItsSignature) {
  // Two findings with one signature (same lines, other columns or event
  // pairs): diverged first, confirmed second. The confirmed one is kept.
  std::vector<TestResult> tests(1);
  auto &fs = tests[0].findings;
  fs.push_back(tf(race("/r/a.c", 1, "f", "/r/a.c", 2, "g"), "p", "diverged"));
  fs.push_back(tf(race("/r/a.c", 1, "f", "/r/a.c", 2, "g"), "p", "confirmed"));
  fs.push_back(tf(race("/r/a.c", 1, "f", "/r/a.c", 2, "g"), "p", "diverged"));
  classify(tests, ClassifyConfig{nullptr, nullptr, "/r"});
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].finding.status, "confirmed");
  EXPECT_EQ(fs[0].verdict, "new");
  EXPECT_EQ(fs[0].duplicates, 2u);
}

TEST(Classify, OutcomesNeverCallAnIncompleteTestClean) {
  TestResult t;
  for (const char *s : {kStatusTimeout, kStatusError, kStatusInconclusive}) {
    t.status = s;
    EXPECT_EQ(testOutcome(t), "error") << s;
  }
  t.status = kStatusSkipped;
  EXPECT_EQ(testOutcome(t), "skipped");
  t.status = kStatusOk;
  EXPECT_EQ(testOutcome(t), "passed");
  // A new finding fails the test even if another trace timed out.
  t.status = kStatusTimeout;
  t.findings.push_back(tf(race("a.c", 1, "f", "a.c", 2, "g"), "p"));
  t.findings[0].verdict = "new";
  EXPECT_EQ(testOutcome(t), "failed");
}

TEST(Classify, WorseStatus) {
  EXPECT_EQ(worseStatus(kStatusOk, kStatusInconclusive), kStatusInconclusive);
  EXPECT_EQ(worseStatus(kStatusTimeout, kStatusInconclusive), kStatusTimeout);
  EXPECT_EQ(worseStatus(kStatusTimeout, kStatusError), kStatusError);
  EXPECT_EQ(worseStatus(kStatusSkipped, kStatusOk), kStatusSkipped);
}

TEST(TestResultJson, RoundTrip) {
  TestResult r;
  r.spec.name = "t";
  r.spec.command = {"./t"};
  r.status = kStatusInconclusive;
  r.reason = "2 solver queries ended unknown";
  r.ran = "signal 6 (Aborted)";
  r.programFailed = true;
  r.seconds = 1.5;
  r.traces.push_back(
      {"/w/t.1.rptrace", kStatusInconclusive, "why", 40, true, 2, 1});
  r.findings.push_back(
      tf(race("a.c", 1, "f", "a.c", 2, "g"), "/w/t.1.rptrace"));
  r.findings.push_back(
      tf(race("a.c", 3, "f", "a.c", 4, "g"), "/w/t.1.rptrace", "diverged"));
  r.findings.back().replay = {{"message", "t2 left the path"},
                              {"step", 3},
                              {"witness_file", "/w/race-3-4.json"},
                              {"reproduce", "racepredict replay …"}};
  r.replayed = true;
  r.outputTail = "bye\n";
  auto back =
      testResultFromJson(nlohmann::json::parse(testResultJson(r).dump()));
  ASSERT_TRUE(static_cast<bool>(back)) << back.error().message;
  EXPECT_EQ(testResultJson(*back).dump(), testResultJson(r).dump());
  EXPECT_TRUE(back->replayed);
  EXPECT_EQ(back->findings[1].finding.status, "diverged");
  EXPECT_EQ(back->findings[1].replay.value("step", 0), 3);
  EXPECT_TRUE(back->findings[0].replay.is_null());
  r.replayed = false;
  r.replayNote = "replay is off (--no-replay)";
  back = testResultFromJson(nlohmann::json::parse(testResultJson(r).dump()));
  ASSERT_TRUE(static_cast<bool>(back));
  EXPECT_EQ(back->replayNote, r.replayNote);
  EXPECT_FALSE(back->replayed);
  auto bad = testResultFromJson(nlohmann::json::parse(R"({"name": "t"})"));
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_EQ(bad.error().message.rfind("test 't': ", 0), 0u);
}
