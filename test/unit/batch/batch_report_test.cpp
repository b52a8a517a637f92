//===- batch_report_test.cpp - JUnit XML, witness text, SARIF, baseline ---===//
#include "racepredict/batch/batch_report.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace racepredict;
using namespace racepredict::batch;

namespace {

report::Site site(const std::string &thread, int64_t event, const char *file,
                  uint32_t line, const char *fn) {
  report::Site s;
  s.thread = thread;
  s.event = event;
  s.op = "wr";
  s.object = "x";
  s.file = file;
  s.line = line;
  s.function = fn;
  s.text = thread + " wr x 1  @ " + file + ":" + std::to_string(line);
  return s;
}

TestFinding finding(size_t witnessLength) {
  TestFinding tf;
  auto &f = tf.finding;
  f.kind = report::FindingKind::Race;
  f.object = "x";
  f.sites = {site("t1", 1, "/r/a.c", 3, "main"),
             site("t2", 2, "/r/a.c", 9, "worker")};
  for (size_t i = 0; i + 2 < witnessLength; ++i)
    f.witness.push_back(
        {site(i % 2 ? "t1" : "t2", 10 + i, "/r/a.c", 5, "f"), false});
  f.witness.push_back({f.sites[0], true});
  f.witness.push_back({f.sites[1], true});
  f.message = "Data race on x <&> \"q\"";
  tf.trace = "/w/a.rptrace";
  tf.signature = "race|a.c:3:main|a.c:9:worker";
  tf.verdict = "new";
  return tf;
}

BatchRun sampleRun() {
  BatchRun run;
  run.input = "traces /w";
  run.executor = "local, -j 1";
  run.sourceRoot = "/r";
  run.started = "2024-01-01T00:00:00Z";
  run.tests.resize(4);
  run.tests[0].spec.name = "racy";
  run.tests[0].findings.push_back(finding(4));
  run.tests[1].spec.name = "slow";
  run.tests[1].status = kStatusTimeout;
  run.tests[1].reason = "recording stopped";
  run.tests[2].spec.name = "off";
  run.tests[2].status = kStatusSkipped;
  run.tests[2].reason = "disabled";
  run.tests[3].spec.name = "fine";
  run.tests[3].outputTail = std::string("bad \x01 byte \xff end\n");
  return run;
}

} // namespace

TEST(JUnit, CountsCasesAndEscaping) {
  std::string x = junitXml(sampleRun());
  EXPECT_NE(x.find("<testsuites name=\"racepredict\" tests=\"4\" "
                   "failures=\"1\" errors=\"1\" skipped=\"1\""),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("<failure type=\"race\" message=\"Data race on x "
                   "&lt;&amp;&gt; &quot;q&quot;\">"),
            std::string::npos);
  EXPECT_NE(x.find("<error type=\"timeout\" message=\"recording stopped\">"),
            std::string::npos);
  EXPECT_NE(x.find("<skipped message=\"disabled\"/>"), std::string::npos);
  // The control character is dropped, the invalid UTF-8 byte escaped as
  // in every other report.
  EXPECT_NE(x.find("bad  byte \\xFF end"), std::string::npos);
}

TEST(JUnit, WitnessTextNumbersStepsAndShortensLongOnes) {
  std::string w = witnessText(finding(4));
  EXPECT_NE(w.find("Witness schedule (4 events; the last two race):\n"
                   "  1. [10] t2 wr x 1  @ /r/a.c:5\n"
                   "  2. [11] t1 wr x 1  @ /r/a.c:5\n"
                   "  3. [1] t1 wr x 1  @ /r/a.c:3   <==\n"
                   "  4. [2] t2 wr x 1  @ /r/a.c:9   <==\n"),
            std::string::npos)
      << w;
  EXPECT_NE(w.find("Signature: race|a.c:3:main|a.c:9:worker\n"),
            std::string::npos);
  std::string longer = witnessText(finding(1000));
  EXPECT_NE(longer.find("… 600 steps left out (the JSON report has all of "
                        "them) …"),
            std::string::npos);
  EXPECT_NE(longer.find(" 1000. [2] t2 wr x 1"), std::string::npos);
}

TEST(BatchSarif, OneResultPerSignatureWithTestsAndNotifications) {
  BatchRun run = sampleRun();
  run.tests[3].findings.push_back(finding(4)); // same race, another test
  run.baselinePath = "base.json";
  auto s = batchSarif(run);
  const auto &r = s["runs"][0];
  ASSERT_EQ(r["results"].size(), 1u);
  EXPECT_EQ(r["results"][0]["properties"]["tests"].dump(),
            R"(["fine","racy"])");
  EXPECT_EQ(r["results"][0]["baselineState"], "new");
  EXPECT_EQ(r["results"][0]["locations"][0]["physicalLocation"]
             ["artifactLocation"]["uri"],
            "a.c");
  EXPECT_EQ(r["invocations"][0]["executionSuccessful"], false);
  EXPECT_EQ(
      r["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"],
      "test slow: timeout: recording stopped");
  // The baseline of this run holds the signature once, with both tests.
  report::Baseline b = baselineOf(run);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b.entries().begin()->second.tests,
            (std::set<std::string>{"fine", "racy"}));
}

TEST(Summary, CountsAndNewFindings) {
  std::ostringstream out;
  printSummary(sampleRun(), out);
  EXPECT_EQ(out.str().substr(0, out.str().find('\n')),
            "racepredict batch: 4 tests: 1 failed, 1 passed, 0 unconfirmed, "
            "1 not fully analysed, 1 skipped; 1 finding: 1 new, 0 known, 0 "
            "suppressed, "
            "0 unconfirmed by replay (0.0 s, local, -j 1)");
  EXPECT_NE(out.str().find(
                "  NEW race in racy (predicted, not replayed): Data race on x"),
            std::string::npos);
  EXPECT_NE(out.str().find("  timeout: slow: recording stopped"),
            std::string::npos);
}

namespace {

/// The sample run as a replayed one: `racy`'s race confirmed, and `fine`
/// with a race replay could not enforce.
BatchRun replayedRun() {
  BatchRun run = sampleRun();
  run.input = "ctest /b";
  run.tests[0].replayed = true;
  run.tests[0].findings[0].finding.status = "confirmed";
  run.tests[0].findings[0].replay = {
      {"message", "data race on 0x10 (x): …"},
      {"witness_file", "/w/0-racy/witnesses/race-1-2.json"},
      {"reproduce", "cd /b && racepredict replay --schedule "
                    "/w/0-racy/witnesses/race-1-2.json -- ./racy"}};
  run.tests[3].replayed = true;
  TestFinding u = finding(4);
  u.finding.sites[0].line = 30; // another signature
  u.signature = "race|a.c:30:main|a.c:9:worker";
  u.finding.message = "Data race on y";
  u.finding.status = "diverged";
  u.verdict = "unconfirmed";
  u.replay = {{"message", "t2 did not reach step 3 within 3000 ms"},
              {"step", 3},
              {"witness_file", "/w/3-fine/witnesses/race-1-2.json"}};
  run.tests[3].findings.push_back(u);
  return run;
}

} // namespace

TEST(Replayed, UnconfirmedFindingsAreListedNotFailedNorPassed) {
  BatchRun run = replayedRun();
  std::string x = junitXml(run);
  // Still one failure (racy's confirmed race); `fine`, whose only finding
  // replay did not confirm, is a skipped case (JUnit has no "unconfirmed").
  EXPECT_NE(x.find("tests=\"4\" failures=\"1\" errors=\"1\" "
                   "skipped=\"2\""),
            std::string::npos)
      << x;
  size_t fine = x.find("<testcase name=\"fine\"");
  ASSERT_NE(fine, std::string::npos);
  std::string fineCase = x.substr(fine, x.find("</testcase>", fine) - fine);
  EXPECT_EQ(fineCase.find("<failure"), std::string::npos) << fineCase;
  EXPECT_NE(fineCase.find("<skipped message=\"unconfirmed: 1 predicted "
                          "finding that replay did not confirm"),
            std::string::npos)
      << fineCase;
  EXPECT_NE(fineCase.find("<property name=\"racepredict.unconfirmed.race\" "
                          "value=\"diverged: Data race on y\"/>"),
            std::string::npos)
      << fineCase;
  EXPECT_NE(fineCase.find("unconfirmed by replay: Data race on y\n"
                          "  replay diverged: t2 did not reach step 3 within "
                          "3000 ms\n"
                          "  witness file: /w/3-fine/witnesses/race-1-2.json"),
            std::string::npos)
      << fineCase;
  // The confirmed failure names its verdict, witness file and how to
  // replay it again.
  std::string w = witnessText(run.tests[0].findings[0]);
  EXPECT_NE(w.find("Status: replay confirmed: data race on 0x10 (x): …\n"),
            std::string::npos)
      << w;
  EXPECT_NE(w.find("Witness file: /w/0-racy/witnesses/race-1-2.json\n"
                   "Replay it again: cd /b && racepredict replay --schedule "
                   "/w/0-racy/witnesses/race-1-2.json -- ./racy\n"),
            std::string::npos)
      << w;

  std::ostringstream out;
  printSummary(run, out);
  EXPECT_NE(out.str().find("4 tests: 1 failed, 0 passed, 1 unconfirmed, 1 "
                           "not fully analysed, 1 skipped; 2 findings: 1 "
                           "new, 0 known, 0 suppressed, 1 unconfirmed by "
                           "replay"),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("  NEW race in racy (confirmed by replay): Data "
                           "race on x"),
            std::string::npos);
  EXPECT_NE(out.str().find("  UNCONFIRMED race in fine (replay diverged: t2 "
                           "did not reach step 3 within 3000 ms): Data race "
                           "on y\n"),
            std::string::npos);

  auto j = batchJson(run);
  EXPECT_EQ(j["summary"]["unconfirmed"], 1);
  EXPECT_EQ(j["summary"]["confirmed"], 1);
  EXPECT_EQ(j["replay"], true);
  EXPECT_EQ(j["summary"]["unconfirmed_tests"], 1);
  EXPECT_EQ(j["summary"]["passed"], 0);
  EXPECT_EQ(j["tests"][3]["outcome"], "unconfirmed");
  EXPECT_EQ(j["tests"][3]["findings"][0]["verdict"], "unconfirmed");
  EXPECT_EQ(j["tests"][3]["findings"][0]["status"], "diverged");
  EXPECT_EQ(j["tests"][3]["findings"][0]["replay"]["step"], 3);

  // The baseline holds what counts: not the unconfirmed race.
  report::Baseline b = baselineOf(run);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b.entries().begin()->first, "race|a.c:3:main|a.c:9:worker");
}

TEST(Replayed, SarifWarnsAboutUnconfirmedFindings) {
  BatchRun run = replayedRun();
  run.baselinePath = "base.json";
  run.tests[3].findings[0].inBaseline = true;
  auto s = batchSarif(run);
  const auto &results = s["runs"][0]["results"];
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0]["level"], "error");
  EXPECT_EQ(results[0]["message"]["text"],
            "Data race on x <&> \"q\" (confirmed by replay)");
  EXPECT_EQ(results[0]["properties"]["status"], "confirmed");
  EXPECT_EQ(results[0]["baselineState"], "new");
  EXPECT_EQ(results[1]["level"], "warning");
  EXPECT_EQ(results[1]["message"]["text"],
            "Data race on y (unconfirmed: replay diverged: t2 did not reach "
            "step 3 within 3000 ms)");
  EXPECT_EQ(results[1]["properties"]["verdict"], "unconfirmed");
  EXPECT_EQ(results[1]["properties"]["status"], "diverged");
  EXPECT_EQ(results[1]["properties"]["replay"]["witness_file"],
            "/w/3-fine/witnesses/race-1-2.json");
  EXPECT_EQ(results[1]["baselineState"], "unchanged");
  EXPECT_EQ(s["runs"][0]["properties"]["replay"], true);
}

TEST(Replayed, ASignatureIsRepresentedByAnOccurrenceThatCounts) {
  // The same race unconfirmed in one test (first) and confirmed in
  // another: one SARIF result, an error, listing both tests.
  BatchRun run = replayedRun();
  TestFinding u = run.tests[0].findings[0];
  u.finding.status = "not-reproduced";
  u.verdict = "unconfirmed";
  run.tests[0].findings[0].verdict = "new";
  run.tests[1].findings.push_back(u);
  std::swap(run.tests[0], run.tests[1]);
  auto s = batchSarif(run);
  const auto &results = s["runs"][0]["results"];
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0]["level"], "error");
  EXPECT_EQ(results[0]["properties"]["verdict"], "new");
  EXPECT_EQ(results[0]["properties"]["tests"].dump(), R"(["racy","slow"])");
}

TEST(Replayed, TheConfirmationNoteSaysWhatCounts) {
  BatchRun run = replayedRun();
  EXPECT_EQ(confirmationNote(run).rfind("replay-confirmed: ", 0), 0u);
  run.replay = false;
  EXPECT_NE(confirmationNote(run).find("(--no-replay)"), std::string::npos);
  run.input = "traces /w";
  EXPECT_NE(confirmationNote(run).find(
                "(recorded traces: there is no program to replay)"),
            std::string::npos);
  std::ostringstream out;
  printSummary(run, out);
  EXPECT_NE(out.str().find("findings are predicted (witness schedules "
                           "validated on the traces), not replayed"),
            std::string::npos);
}
