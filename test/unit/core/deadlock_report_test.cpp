//===- deadlock_report_test.cpp - Deadlock text, JSON and witness files ---===//
//
// The kind-specific sentences, the JSON report's shape (DESIGN.md's
// threads/cycle/witness plus kind and blocked), and the --witness-dir file
// a replayer reads: steps with halves, and each thread's state.
//
#include "racepredict/report/report.h"
#include "racepredict/trace/text_format.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace racepredict;

namespace {

struct Analysed {
  trace::Trace t;
  std::unique_ptr<analysis::TraceIndex> idx;
  solver::DeadlockResult r;
  explicit Analysed(const std::string &text) {
    std::istringstream in(text);
    auto p = trace::parseTextTrace(in, "test.rpt.txt");
    EXPECT_TRUE(static_cast<bool>(p));
    if (p)
      t = std::move(*p);
    idx = std::make_unique<analysis::TraceIndex>(t);
    r = solver::predictDeadlocks(*idx, {});
  }
  std::vector<std::string> reasons() const {
    std::vector<std::string> out;
    for (const auto &d : r.deadlocks)
      for (const auto &b : d.blocked)
        out.push_back(report::describeBlock(t, b, d.blocked));
    return out;
  }
};

const char *kOpposite = R"(
t0 fork t1
t0 fork t2
t1 acq a
t1 acq b
t1 rel b
t1 rel a
t2 acq b
t2 acq a
t2 rel a
t2 rel b
t0 join t1
t0 join t2
)";

const char *kNestedMonitor = R"(
t0 fork t1
t0 fork t2
t2 acq l
t2 rel l
t1 acq l
t1 acq m
t2 acq m
t2 signal c
t2 rel m
t1 wait c m <- 7
t1 rel m
t1 rel l
t0 join t1
t0 join t2
)";

} // namespace

TEST(DeadlockReport, LockOrderKeepsTheCycleShape) {
  Analysed run(kOpposite);
  auto j = report::deadlocksJson(run.t, run.r, *run.idx);
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["kind"], "lock-order");
  EXPECT_EQ(j[0]["threads"], nlohmann::ordered_json({"t1", "t2", "t0"}));
  ASSERT_EQ(j[0]["cycle"].size(), 2u);
  EXPECT_EQ(j[0]["cycle"][0]["event"], 3);
  EXPECT_EQ(j[0]["cycle"][0]["waits_for"], "b");
  EXPECT_EQ(j[0]["cycle"][0]["holds"], "a");
  EXPECT_EQ(j[0]["cycle"][0]["held_since"]["event"], 2);
  EXPECT_EQ(j[0]["cycle"][1]["event"], 7);
  EXPECT_EQ(j[0]["cycle"][1]["waits_for"], "a");
  EXPECT_EQ(j[0]["blocked"][2]["blocked_on"],
            nlohmann::ordered_json({{"kind", "join"}, {"thread", "t1"}}));
  EXPECT_EQ(j[0]["blocked"][0]["blocked_on"]["holder"], "t2");
  EXPECT_EQ(j[0]["blocked"][0]["blocked_on"]["mode"], "write");
  EXPECT_EQ(run.reasons(),
            (std::vector<std::string>{
                "thread t1 waits for lock b held by t2 (acquired at event 6: "
                "t2 acq b)",
                "thread t2 waits for lock a held by t1 (acquired at event 2: "
                "t1 acq a)",
                "thread t0 joins t1 which is blocked on lock b"}));
}

TEST(DeadlockReport, TextNamesEveryBlockedThreadAndTheWitness) {
  Analysed run(kOpposite);
  std::ostringstream out;
  report::ReportContext ctx;
  ctx.tracePath = "dl.rpt.txt";
  report::printDeadlockReport(run.t, run.r, *run.idx, ctx, out);
  std::string s = out.str();
  EXPECT_NE(s.find("WARNING: racepredict: lock-order deadlock (predicted), 3 "
                   "threads blocked\n  [3] t1 acq b\n      thread t1 waits for "
                   "lock b held by t2"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("  Witness schedule (4 steps; then every thread above is "
                   "blocked for good):\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("SUMMARY: racepredict: 1 deadlock predicted in "
                   "dl.rpt.txt"),
            std::string::npos)
      << s;
}

TEST(DeadlockReport, WitnessFileHasStepsHalvesAndThreadStates) {
  Analysed run(kNestedMonitor);
  ASSERT_EQ(run.r.deadlocks.size(), 1u);
  auto j =
      report::deadlockWitnessJson(run.t, run.r.deadlocks[0], *run.idx, "x");
  EXPECT_EQ(j["kind"], "deadlock");
  EXPECT_EQ(j["deadlock_kind"], "condition");
  // t1 is blocked at its wait's return, its first half done.
  ASSERT_EQ(j["blocked"].size(), 3u);
  EXPECT_EQ(j["blocked"][1]["event"], 9);
  EXPECT_EQ(j["blocked"][1]["half_done"], true);
  EXPECT_EQ(j["blocked"][1]["blocked_on"]["kind"], "condition");
  EXPECT_EQ(j["blocked"][1]["blocked_on"]["notify"]["event"], 7);
  EXPECT_EQ(j["blocked"][1]["reason"],
            "thread t1 waits on condition c (no notify left that can wake "
            "it)");
  // The steps list the wait's release half; the witness lists events only.
  bool half = false;
  for (const auto &s : j["steps"])
    half = half || (s["event"] == 9 && s["half"] == true);
  EXPECT_TRUE(half);
  for (const auto &e : j["witness"])
    EXPECT_NE(e, 9);
  EXPECT_EQ(j["state"], nlohmann::ordered_json::parse(R"([
              {"thread": "t0", "status": "blocked", "next_event": 12},
              {"thread": "t1", "status": "blocked", "next_event": 9},
              {"thread": "t2", "status": "blocked", "next_event": 2}])"));
}

TEST(DeadlockReport, SemaphoreBarrierAndCreationSentences) {
  Analysed sem(R"(
t0 seminit s 0
t0 fork t1
t0 post s
t1 semwait s
t1 post s
t0 semwait s
t0 join t1
)");
  EXPECT_EQ(sem.reasons(),
            (std::vector<std::string>{
                "thread t1 waits on semaphore s (count 0, no post left)",
                "thread t0 joins t1 which is blocked on semaphore s"}));
  Analysed bar(R"(
t0 fork t1
t0 fork t2
t1 acq m
t1 rel m
t1 barrier b 2
t2 acq m
t2 barrier b 2
t2 rel m
t0 join t1
t0 join t2
)");
  EXPECT_EQ(bar.reasons(),
            (std::vector<std::string>{
                "thread t1 waits for lock m held by t2 (acquired at event 5: "
                "t2 acq m)",
                "thread t2 waits at barrier b: 1 of 2 arrived",
                "thread t0 joins t1 which is blocked on lock m"}));
  Analysed created(R"(
t0 fork t1
t0 acq m
t0 fork t2
t0 rel m
t2 wr x 1
t1 acq m
t1 join t2
t1 rel m
)");
  EXPECT_EQ(created.reasons(),
            (std::vector<std::string>{
                "thread t0 waits for lock m held by t1 (acquired at event 5: "
                "t1 acq m)",
                "thread t2 is never created: its creator t0 is blocked before "
                "event 2: t0 fork t2",
                "thread t1 joins t2 which is blocked on its creation"}));
  auto j = report::deadlockWitnessJson(created.t, created.r.deadlocks[0],
                                       *created.idx, "x");
  EXPECT_EQ(
      j["state"][2],
      nlohmann::ordered_json::parse(
          R"({"thread": "t2", "status": "not-created", "next_event": 4})"));
  EXPECT_EQ(j["blocked"][1]["half_done"], false);
}
