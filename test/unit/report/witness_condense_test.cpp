//===- witness_condense_test.cpp - The witness steps that matter ----------===//
#include "report_test_util.h"

#include "racepredict/report/names.h"
#include "racepredict/report/witness_condense.h"

using namespace racepredict;
using namespace racepredict::report;

namespace {

/// t1 runs a long loop (200 steps in `work`, lines 10-12 of w.c) after
/// taking lock m, which t2 held first in the recorded run; then both
/// access x.
std::string loopTrace() {
  std::string s = "t0 fork t1\nt0 fork t2\n"
                  "t2 acq m @w.c:30@other\nt2 rel m @w.c:31@other\n"
                  "t1 acq m @w.c:5@work\nt1 rel m @w.c:6@work\n";
  for (int i = 0; i < 100; ++i)
    s += "t1 wr y " + std::to_string(i) + " @w.c:10@work\nt1 br @w.c:12@work\n";
  s += "t1 wr x 1 @w.c:20@work\nt2 rd x 1 @w.c:40@other\n";
  return s;
}

} // namespace

TEST(WitnessCondense, FoldsTheLoopAndKeepsReorderedLockAndThePair) {
  trace::Trace t = testutil::parse(loopTrace());
  // The witness: t1's section first (observed: t2's first), t1's loop,
  // then t2's section and the racing pair.
  std::vector<trace::EventId> w = {0, 1, 4, 5};
  for (trace::EventId e = 6; e < 206; ++e)
    w.push_back(e);
  w.insert(w.end(), {2, 3, 206, 207});
  std::vector<bool> essential = essentialSteps(t, w, {206, 207});
  auto lines = condenseWitness(t, w, essential);
  ASSERT_LE(lines.size(), 40u);
  std::vector<std::string> got;
  for (const auto &l : lines)
    got.push_back(l.folded
                      ? foldText(t, l.fold)
                      : std::to_string(w[l.step]) + " " + stepRoleName(l.role));
  std::vector<std::string> want = {
      "… 2 steps of t0 …",
      "4 sync", // t1 acq m: t2 took m first in the recorded run
      "5 sync",
      "… 197 steps of t1 in work, w.c:10–12 …",
      "203 last",
      "204 last",
      "205 last",
      "2 sync",
      "3 sync",
      "206 essential",
      "207 essential",
  };
  EXPECT_EQ(got, want);
}

TEST(WitnessCondense, ShortWitnessIsShownWhole) {
  trace::Trace t = testutil::parse(testutil::kRaceTrace);
  std::vector<trace::EventId> w = {0, 1, 3, 2, 4};
  auto lines = condenseWitness(t, w, essentialSteps(t, w, {2, 4}));
  ASSERT_EQ(lines.size(), 5u);
  for (const auto &l : lines)
    EXPECT_FALSE(l.folded);
  EXPECT_EQ(lines[3].role, StepRole::Essential);
}

TEST(WitnessCondense, ReadThatKeepsItsValueAcrossAMovedWrite) {
  // Recorded: t2 writes y=0 (event 2) before t1 reads 0 (event 3); the
  // witness puts the read first: it kept its value.
  trace::Trace t = testutil::parse("t0 fork t1\nt0 fork t2\n"
                                   "t2 wr y 0 @r.c:1@f\nt1 rd y 0 @r.c:2@g\n"
                                   "t1 wr x 1 @r.c:3@g\nt2 wr x 2 @r.c:4@f\n");
  std::vector<trace::EventId> w = {0, 1, 3, 2, 4, 5};
  auto roles = witnessRoles(t, w, essentialSteps(t, w, {4, 5}));
  EXPECT_EQ(roles[2], StepRole::Read);
  EXPECT_NE(roles[3], StepRole::Read); // a write: no value to keep
}

TEST(WitnessCondense, DeadlockMarksEachBlockedThreadsLastStep) {
  trace::Trace t = testutil::parse("t0 fork t1\nt1 acq a\nt0 acq b\n"
                                   "t1 acq b\nt0 acq a\n");
  std::vector<trace::EventId> w = {0, 1, 2};
  auto e = essentialSteps(t, w, {3, 4});
  EXPECT_EQ(e, (std::vector<bool>{false, true, true}));
}

TEST(Names, DemangledQualifiedAndShort) {
  EXPECT_EQ(functionName("_ZN5QueueIiE4pushEi"), "Queue<int>::push(int)");
  EXPECT_EQ(functionName("_ZN6test01L6workerEPv"), "test01::worker(void*)");
  EXPECT_EQ(functionName("worker"), "worker");
  EXPECT_EQ(functionName("_Znot_mangled"), "_Znot_mangled");
  EXPECT_EQ(shortFunctionName("_ZN5QueueIiE4pushEi"), "Queue::push");
  EXPECT_EQ(shortFunctionName("_ZNK5QueueIiE4sizeEv"), "Queue::size");
  EXPECT_EQ(shortFunctionName("_ZN3FoolsERKS_"), "Foo::operator<<");
  EXPECT_EQ(withThousands(4980), "4,980");
  EXPECT_EQ(withThousands(1234567), "1,234,567");
  trace::SourceLoc l{"/a/b.c", 0, 0, "f", 0};
  EXPECT_EQ(locationText(l), "<unknown>");
}
