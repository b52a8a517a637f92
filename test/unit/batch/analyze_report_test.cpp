//===- analyze_report_test.cpp - JSON report → findings, as in-process ----===//
#include "racepredict/batch/analyze_report.h"

#include "racepredict/report/report.h"
#include "racepredict/trace/text_format.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace racepredict;

namespace {

trace::Trace parse(const std::string &text) {
  std::istringstream in(text);
  auto t = trace::parseTextTrace(in, "t.rpt.txt");
  EXPECT_TRUE(static_cast<bool>(t)) << (t ? "" : t.error().message);
  return t ? std::move(*t) : trace::Trace();
}

const char *kFig1 = R"(t1 fork t2
t1 acq l @fig1.c:2@main
t1 wr x 1 @fig1.c:3@main
t1 wr y 1 @fig1.c:4@main
t1 rel l @fig1.c:5@main
t2 begin @fig1.c:6@worker
t2 acq l @fig1.c:6@worker
t2 rd y 1 @fig1.c:7@worker
t2 rel l @fig1.c:8@worker
t2 rd x 1 @fig1.c:9@worker
)";

const char *kDeadlock = R"(t0 fork t1
t0 fork t2
t1 begin
t1 acq a @dl.c:5@f
t1 acq b @dl.c:6@f
t1 rel b
t1 rel a
t1 end
t2 begin
t2 acq b @dl.c:12@g
t2 acq a @dl.c:13@g
t2 rel a
t2 rel b
t2 end
)";

std::string dumpAll(const std::vector<report::Finding> &fs) {
  std::string s;
  for (const auto &f : fs)
    s += report::findingJson(f).dump() + "\n";
  return s;
}

} // namespace

TEST(AnalyzeReport, RacesAndDeadlocksMatchTheInProcessFindings) {
  for (const char *text : {kFig1, kDeadlock}) {
    trace::Trace t = parse(text);
    analysis::TraceIndex idx(t);
    solver::RaceResult races = solver::predictRaces(idx, {});
    solver::DeadlockResult dls = solver::predictDeadlocks(idx, {});
    auto j = report::raceReportJson(t, races, {});
    j["deadlocks"] = report::deadlocksJson(t, dls, idx);
    auto got = batch::findingsFromReport(nlohmann::json::parse(j.dump()), t);
    ASSERT_TRUE(static_cast<bool>(got)) << got.error().message;
    EXPECT_EQ(dumpAll(*got), dumpAll(report::findingsOf(t, races, &dls, idx)));
    EXPECT_EQ(got->size(), 1u); // fig1: x; deadlock: the a/b cycle
  }
}

TEST(AnalyzeReport, ReplayFieldBecomesTheStatus) {
  trace::Trace t = parse(kFig1);
  auto j = nlohmann::json::parse(R"({"races": [
    {"first": {"event": 2}, "second": {"event": 9},
     "witness": [0, 5, 6, 7, 8, 1, 2, 9], "replay": "confirmed"}]})");
  auto got = batch::findingsFromReport(j, t);
  ASSERT_TRUE(static_cast<bool>(got));
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ((*got)[0].status, "confirmed");
  EXPECT_EQ((*got)[0].sites[1].loc(), "fig1.c:9");
}

TEST(AnalyzeReport, ReplayDetailsOnePerFinding) {
  // What `racepredict run --report-all` writes: a verdict and its detail
  // per finding; a finding without `replay` stays predicted, detail null.
  trace::Trace t = parse(kFig1);
  auto j = nlohmann::json::parse(R"({"races": [
    {"first": {"event": 2}, "second": {"event": 9}, "witness": [0, 1, 2, 9],
     "replay": "diverged",
     "replay_detail": {"message": "t2 did not reach its step", "step": 3,
                       "steps": 4, "witness_file": "w/race-2-9.json"}},
    {"first": {"event": 3}, "second": {"event": 7}, "witness": [0, 3, 7]}]})");
  std::vector<nlohmann::json> details;
  auto got = batch::findingsFromReport(j, t, &details);
  ASSERT_TRUE(static_cast<bool>(got)) << got.error().message;
  ASSERT_EQ(got->size(), 2u);
  ASSERT_EQ(details.size(), 2u);
  EXPECT_EQ((*got)[0].status, "diverged");
  EXPECT_EQ(details[0].value("message", ""), "t2 did not reach its step");
  EXPECT_EQ(details[0].value("step", 0), 3);
  EXPECT_EQ(details[0].value("witness_file", ""), "w/race-2-9.json");
  EXPECT_EQ((*got)[1].status, "predicted");
  EXPECT_TRUE(details[1].is_null());
}

TEST(AnalyzeReport, PropertyViolations) {
  trace::Trace t = parse(kFig1);
  auto j = nlohmann::json::parse(R"({"violations": [
    {"property": "lock-before-read", "events": [9, 2], "witness": [0, 5, 9, 2]}]})");
  auto got = batch::findingsFromReport(j, t);
  ASSERT_TRUE(static_cast<bool>(got)) << got.error().message;
  ASSERT_EQ(got->size(), 1u);
  const auto &f = (*got)[0];
  EXPECT_EQ(f.kind, report::FindingKind::Property);
  EXPECT_EQ(f.object, "lock-before-read");
  ASSERT_EQ(f.sites.size(), 2u);
  EXPECT_EQ(f.sites[0].event, 9);
  std::vector<bool> essential;
  for (const auto &w : f.witness)
    essential.push_back(w.essential);
  EXPECT_EQ(essential, (std::vector<bool>{false, false, true, true}));
}

TEST(AnalyzeReport, MalformedEntriesAreNamed) {
  trace::Trace t = parse(kFig1);
  auto err = [&](const char *text) {
    auto r = batch::findingsFromReport(nlohmann::json::parse(text), t);
    return r ? std::string("(ok)") : r.error().message;
  };
  EXPECT_EQ(
      err(R"({"races": [{"first": {"event": 2}, "second": {"event": 99}}]})"),
      "report: races[0]: first/second is not an event of the trace");
  EXPECT_EQ(err(R"({"races": [{"first": 2, "second": 9, "witness": ["a"]}]})"),
            "report: races[0]: witness is not a list of events of the trace");
  EXPECT_EQ(err(R"({"deadlocks": [{"cycle": [{"event": 4}]}]})"),
            "report: deadlocks[0]: no blocked threads");
  EXPECT_EQ(err(R"({"deadlocks": [{"blocked": [{"event": 4}]}]})"),
            "report: deadlocks[0]: a blocked entry lacks event/reason");
  EXPECT_EQ(err(R"({"races": [{"first": 2, "second": 9, "replay": "maybe"}]})"),
            "report: races[0]: replay is not confirmed, diverged or "
            "not-reproduced");
  EXPECT_EQ(err(R"({"violations": [{"events": [1]}]})"),
            "report: violations[0]: needs a property and its events");
  EXPECT_EQ(err("[]"), "report: not a JSON object");
}
