//===- run_report_test.cpp - Reports of `run`: what is shown, with what ---===//
#include "replay_test_util.h"

#include "racepredict/analysis/trace_index.h"
#include "racepredict/report/run_report.h"
#include "racepredict/support/utf8.h"

#include <algorithm>

using namespace racepredict;
using racepredict::testing::parseTrace;

namespace {

struct Fixture {
  trace::Trace t = parseTrace(R"(t0 fork t1 @m.c:10:3@main
t0 fork t2 @m.c:11:3@main
t1 wr x 1 @m.c:3:5@a
t2 rd x 1 @m.c:6:5@b
t1 wr y 1 @m.c:4:5@a
t2 rd y 1 @m.c:7:5@b
)");
  analysis::TraceIndex idx{t};
  solver::RaceResult races;
  report::RunReport r;
  Fixture() {
    races.races.push_back(
        {2, 3, analysis::WitnessSchedule({{0}, {1}, {2}, {3}})});
    races.races.push_back(
        {4, 5, analysis::WitnessSchedule({{0}, {1}, {2}, {4}, {3}, {5}})});
    r.trace = &t;
    r.index = &idx;
    r.races = &races;
    report::ReplayInfo ok;
    ok.verdict = "confirmed";
    ok.message = "data race on 0x10 (x): ...";
    ok.variable = "x";
    ok.step = ok.steps = 4;
    ok.schedule = {"[0] t0 fork t1", "[1] t0 fork t2", "[2] t1 wr x 1",
                   "[3] t2 rd x 1"};
    ok.scheduleEvents = {0, 1, 2, 3};
    ok.witnessFile = "w/race-2-3.json";
    report::ReplayInfo bad;
    bad.verdict = "diverged";
    bad.message = "thread t2 did not reach this step";
    bad.location = "m.c:7:5";
    bad.step = 5;
    bad.steps = 6;
    bad.scheduleEvents = {0, 1, 2, 4, 3, 5};
    r.raceReplays = {ok, bad};
    r.command = " ./m";
    r.argv = {"./m"};
  }
};

TEST(RunReport, TextShowsOnlyConfirmedByDefault) {
  Fixture f;
  std::ostringstream out;
  report::printRunReport(f.r, out);
  std::string s = out.str();
  EXPECT_NE(s.find("WARNING: racepredict: data race (predicted, confirmed by "
                   "replay)\n  Read at x"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("at x by thread t2 (event 3):\n    #0 b m.c:6:5\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("  Previous write at x by thread t1 (event 2):\n"
                   "    #0 a m.c:3:5\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("  Thread t2 created by thread t0 at:\n    #0 main "
                   "m.c:11:3\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("    3. [2] t1 wr x 1   <== racing access\n"
                   "    4. [3] t2 rd x 1   <== racing access\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("  Replay it: racepredict replay --schedule "
                   "w/race-2-3.json -- ./m\n"),
            std::string::npos);
  EXPECT_NE(s.find("SUMMARY: racepredict: data race m.c:6:5 in b / m.c:3:5 "
                   "in a\n"),
            std::string::npos);
  EXPECT_EQ(s.find("diverged)"), std::string::npos);
  EXPECT_NE(s.find("racepredict run: 1 of 2 predicted findings confirmed by "
                   "replay (1 diverged, 0 not reproduced; --report-all lists "
                   "them)\n"),
            std::string::npos)
      << s;
  EXPECT_EQ(report::confirmedCount(f.r), 1u);
}

TEST(RunReport, ReportAllShowsDivergedWithItsReason) {
  Fixture f;
  f.r.reportAll = true;
  std::ostringstream out;
  report::printRunReport(f.r, out);
  std::string s = out.str();
  EXPECT_NE(s.find("WARNING: racepredict: data race (predicted, replay "
                   "diverged)"),
            std::string::npos);
  EXPECT_NE(s.find("  Replay: diverged at step 5/6: thread t2 did not reach "
                   "this step\n"),
            std::string::npos);
  // Where, in the program's terms: the recorded event of step 5 and its
  // stack; no witness file was kept: how to keep one.
  EXPECT_NE(s.find("  The run left the witness before step 5, [3] t2 rd x 1  "
                   "@ m.c:6:5 in b, recorded at:\n      #0 b m.c:6:5\n"
                   "  (run with --witness-dir DIR to keep this witness"),
            std::string::npos)
      << s;
  // With a kept witness: the command that checks it on the trace.
  f.r.raceReplays[1].witnessFile = "w/race-4-5.json";
  f.r.ctx.tracePath = "w/trace.rptrace";
  std::ostringstream again;
  report::printRunReport(f.r, again);
  EXPECT_NE(again.str().find("  Check the witness on the trace: racepredict "
                             "check-witness w/trace.rptrace w/race-4-5.json\n"),
            std::string::npos)
      << again.str();
  // No schedule was replayed for it: the witness events are listed.
  EXPECT_NE(s.find("Witness schedule (6 steps; the last two race)"),
            std::string::npos);
}

TEST(RunReport, JsonCarriesTheReplayField) {
  Fixture f;
  auto j = report::runReportJson(f.r);
  ASSERT_EQ(j["races"].size(), 1u);
  EXPECT_EQ(j["races"][0]["replay"], "confirmed");
  EXPECT_EQ(j["races"][0]["first"]["event"], 2);
  EXPECT_EQ(j["races"][0]["replay_detail"]["variable"], "x");
  EXPECT_EQ(j["races"][0]["replay_detail"]["witness_file"], "w/race-2-3.json");
  EXPECT_EQ(j["races"][0]["second"]["stack"][0], "b m.c:6:5");
  EXPECT_EQ(j["stats"]["replay"]["confirmed"], 1);
  EXPECT_EQ(j["stats"]["replay"]["diverged"], 1);
  EXPECT_EQ(j["program"][0], "./m");
  f.r.reportAll = true;
  auto all = report::runReportJson(f.r);
  ASSERT_EQ(all["races"].size(), 2u);
  EXPECT_EQ(all["races"][1]["replay"], "diverged");
  EXPECT_EQ(all["races"][1]["replay_detail"]["location"], "m.c:7:5");
  const auto &before = all["races"][1]["replay_detail"]["diverged_before"];
  EXPECT_EQ(before["event"], 3);
  EXPECT_EQ(before["thread"], "t2");
  EXPECT_EQ(before["stack"][0], "b m.c:6:5");
}

TEST(RunReport, StreamedJsonIsTheDocumentWithThePipelineStats) {
  Fixture f;
  solver::DeadlockResult none;
  f.r.deadlocks = &none;
  f.r.pipelineStats = {
      {"stages", {{{"stage", "load"}, {"seconds", 0.25}, {"peak_mb", 1.5}}}},
      {"local_reduction", {{"kept_events", 4}, {"local_locations", 1}}}};
  for (bool all : {false, true}) {
    f.r.reportAll = all;
    auto j = report::runReportJson(f.r);
    EXPECT_EQ(j["stats"]["stages"][0]["stage"], "load");
    EXPECT_EQ(j["stats"]["stages"][0]["peak_mb"], 1.5);
    EXPECT_EQ(j["stats"]["local_reduction"]["kept_events"], 4);
    // After the race figures, before the replay's, as `analyze` has them.
    std::vector<std::string> keys;
    for (auto m = j["stats"].begin(); m != j["stats"].end(); ++m)
      keys.push_back(m.key());
    EXPECT_EQ(keys.end() - std::find(keys.begin(), keys.end(), "stages"), 3);
    std::ostringstream out;
    report::writeRunReportJson(f.r, out);
    EXPECT_EQ(out.str(), jsonText(j) + "\n");
  }
}

} // namespace
