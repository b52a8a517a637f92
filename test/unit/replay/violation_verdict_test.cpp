//===- violation_verdict_test.cpp - Judging a replayed violation ----------===//
//
// The runtime reports what each step of a violation schedule did; the
// judgement must confirm exactly when the observed values exhibit the
// pattern: same names, one consistent binding, no gap event in between —
// and never on a step that executed another custom event.
//
#include "replay_test_util.h"

#include "racepredict/analysis/trace_index.h"
#include "racepredict/property/parser.h"
#include "racepredict/replay/violation_verdict.h"

using namespace racepredict;
using racepredict::testing::parseTrace;
using replay::StepObservation;
using replay::Verdict;

namespace {

struct Fixture {
  trace::Trace t;
  std::vector<property::Property> props;
  replay::Schedule s;
  replay::ViolationTarget target;

  /// `steps`: the witness (trace events, all full steps); `events`: the
  /// violating events of the first pattern of the first property.
  Fixture(const std::string &trace, const std::string &propText,
          std::vector<analysis::EventId> steps,
          std::vector<analysis::EventId> events) {
    t = parseTrace(trace);
    auto ps = property::parseProperties(propText, "test.props");
    EXPECT_TRUE(static_cast<bool>(ps)) << (ps ? "" : ps.error().message);
    props = std::move(*ps);
    analysis::TraceIndex idx(t);
    report::SourceText src;
    std::vector<analysis::Step> st;
    for (auto e : steps)
      st.push_back({e, false});
    auto sched = replay::violationSchedule(idx, st, src);
    EXPECT_TRUE(static_cast<bool>(sched));
    s = std::move(*sched);
    target = {&props[0].patterns[0], std::move(events)};
  }
  replay::ViolationVerdict judge(const std::vector<std::string> &lines) {
    auto obs = replay::parseObservations(lines);
    EXPECT_TRUE(static_cast<bool>(obs)) << (obs ? "" : obs.error().message);
    return replay::judgeViolation(t, s, target, *obs);
  }
};

// close, then read of the same file, no open in between.
const char *kCloseRead = R"(t0 begin
t0 fork t1
t1 begin
t0 ev close f1
t1 ev read f1
)";
const char *kUseAfterClose = "property use_after_close(f):\n"
                             "    forbid close(f); [no open(f)] read(f)\n";

TEST(ViolationVerdict, ConfirmsWhenTheObservedArgumentsBindAlike) {
  Fixture f(kCloseRead, kUseAfterClose, {0, 1, 2, 3, 4}, {3, 4});
  auto v = f.judge({"0 0x0", "1 0x1", "2 0x0", "3 0x0 ev close #0x5000",
                    "4 0x0 ev read #0x5000"});
  EXPECT_EQ(v.verdict, Verdict::Confirmed) << v.message;
  EXPECT_NE(v.message.find("t0 close(0x5000), then t1 read(0x5000)"),
            std::string::npos)
      << v.message;
}

TEST(ViolationVerdict, AnotherObjectInTheReplayIsNotReproduced) {
  // The replayed run read another file than it closed: no violation.
  Fixture f(kCloseRead, kUseAfterClose, {0, 1, 2, 3, 4}, {3, 4});
  auto v = f.judge({"0 0x0", "1 0x1", "2 0x0", "3 0x0 ev close #0x5000",
                    "4 0x0 ev read #0x6000"});
  EXPECT_EQ(v.verdict, Verdict::NotReproduced);
  EXPECT_NE(v.message.find("does not match step 2"), std::string::npos)
      << v.message;
}

TEST(ViolationVerdict, AGapEventThatNowMatchesIsNotReproduced) {
  // In the trace the open is of another file; in the replay it opened the
  // file that is then read, which the gap forbids.
  Fixture f(R"(t0 begin
t0 fork t1
t1 begin
t0 ev close f1
t0 ev open f2
t1 ev read f1
)",
            kUseAfterClose, {0, 1, 2, 3, 4, 5}, {3, 5});
  auto v = f.judge({"0 0x0", "1 0x1", "2 0x0", "3 0x0 ev close #0x5000",
                    "4 0x0 ev open #0x5000", "5 0x0 ev read #0x5000"});
  EXPECT_EQ(v.verdict, Verdict::NotReproduced);
  EXPECT_NE(v.message.find("matches the gap item open(f)"), std::string::npos)
      << v.message;
  auto ok = f.judge({"0 0x0", "1 0x1", "2 0x0", "3 0x0 ev close #0x5000",
                     "4 0x0 ev open #0x7000", "5 0x0 ev read #0x5000"});
  EXPECT_EQ(ok.verdict, Verdict::Confirmed) << ok.message;
}

TEST(ViolationVerdict, AnotherCustomEventAtAStepHasDiverged) {
  Fixture f(kCloseRead, kUseAfterClose, {0, 1, 2, 3, 4}, {3, 4});
  auto v = f.judge({"0 0x0", "1 0x1", "2 0x0", "3 0x0 ev open #0x5000",
                    "4 0x0 ev read #0x5000"});
  EXPECT_EQ(v.verdict, Verdict::Diverged);
  EXPECT_NE(v.message.find("executed custom event open where the witness has "
                           "close"),
            std::string::npos)
      << v.message;
}

TEST(ViolationVerdict, AStepNotObservedIsNotReproduced) {
  Fixture f(kCloseRead, kUseAfterClose, {0, 1, 2, 3, 4}, {3, 4});
  auto v = f.judge({"0 0x0", "1 0x1", "2 0x0", "3 0x0 ev close #0x5000"});
  EXPECT_EQ(v.verdict, Verdict::NotReproduced);
  EXPECT_NE(v.message.find("did not report step 5"), std::string::npos)
      << v.message;
}

TEST(ViolationVerdict, LiteralsCompareByName) {
  Fixture f(R"(t0 begin
t0 fork t1
t1 begin
t1 ev acc y store
t0 ev acc y load
)",
            "property race(v):\n"
            "    forbid t1: acc(v, store); [no t1: *] t2: acc(v)\n",
            {0, 1, 2, 3, 4}, {3, 4});
  auto ok = f.judge({"0 0x0", "1 0x1", "2 0x0", "3 0x0 ev acc =y =store",
                     "4 0x0 ev acc =y =load"});
  EXPECT_EQ(ok.verdict, Verdict::Confirmed) << ok.message;
  // The first literal is no longer `store`.
  EXPECT_EQ(f.judge({"0 0x0", "1 0x1", "2 0x0", "3 0x0 ev acc =y =load",
                     "4 0x0 ev acc =y =load"})
                .verdict,
            Verdict::NotReproduced);
}

TEST(ViolationVerdict, AtomicityComparesTheReplayedAddresses) {
  // R-W-R on x: t1's two reads and t0's write must touch one address.
  Fixture f(R"(t0 begin
t0 fork t1
t1 begin
t1 ev b
t1 rd x 0
t0 wr x 1
t1 rd x 1
)",
            "property atomic_x:\n    atomic b .. e\n", {0, 1, 2, 3, 4, 5, 6},
            {});
  // The R-W-R pattern is the first compiled one.
  ASSERT_EQ(f.props[0].patterns[0].origin, "atomicity R-W-R");
  f.target.events = {3, 4, 5, 6};
  EXPECT_EQ(f.judge({"0 0x0", "1 0x1", "2 0x0", "3 0x0 ev b", "4 0x8000",
                     "5 0x8000", "6 0x8000"})
                .verdict,
            Verdict::Confirmed);
  auto v = f.judge({"0 0x0", "1 0x1", "2 0x0", "3 0x0 ev b", "4 0x8000",
                    "5 0x9000", "6 0x8000"});
  EXPECT_EQ(v.verdict, Verdict::NotReproduced) << v.message;
}

TEST(ViolationVerdict, ParsesObservationsAndRejectsBadLines) {
  auto o = replay::parseObservations(
      {"7 0x10", "8 0x0 ev a%20b #0xff =lit%25 #0x0", "9 0x0 ev -"});
  ASSERT_TRUE(static_cast<bool>(o)) << o.error().message;
  ASSERT_EQ(o->size(), 3u);
  EXPECT_EQ((*o)[0].step, 7u);
  EXPECT_EQ((*o)[0].object, 0x10u);
  EXPECT_FALSE((*o)[0].custom);
  EXPECT_TRUE((*o)[1].custom);
  EXPECT_EQ((*o)[1].name, "a b");
  EXPECT_EQ((*o)[1].args, (std::vector<std::string>{"0xff", "lit%", "0x0"}));
  EXPECT_EQ((*o)[2].name, "");
  for (const char *bad : {"x 0x0", "1 16", "1 0x0 ev", "1 0x0 evx a",
                          "1 0x0 ev a 12", "1 0x0 ev a =%G1"})
    EXPECT_FALSE(static_cast<bool>(replay::parseObservations({bad}))) << bad;
}

} // namespace
