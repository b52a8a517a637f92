//===- test/model/paper_examples_test.cpp - Known answers, both sides -----===//
//
// The paper traces (test/inputs/paper, examples/) and small hand traces,
// one per rule of docs/semantics.md that random traces exercise rarely:
// the enumerator must find exactly the expected races, and the predictor
// must agree with it (checkAgainstModel).
//
#include "model_check.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace racepredict::testsupport;

namespace {

/// Reads a trace file and its `# expect: race A B` / `# expect: none`
/// lines (the convention of test/cli/check_analyze.py).
std::string readTrace(const std::string &path, Pairs *expected) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  std::istringstream lines(ss.str());
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream w(line);
    std::string hash, tag, what;
    w >> hash >> tag >> what;
    if (hash == "#" && tag == "expect:" && what == "race") {
      uint32_t a = 0, b = 0;
      w >> a >> b;
      expected->insert({a, b});
    }
  }
  return ss.str();
}

void expectModel(const std::string &text, const Pairs &expected,
                 bool reproducible = true) {
  ModelCheck c = checkAgainstModel(text, reproducible, true);
  EXPECT_TRUE(c.ok) << c.message;
  EXPECT_EQ(c.enumerated, expected)
      << "enumerator " << formatPairs(c.enumerated) << " on\n"
      << text;
}

class PaperTrace : public ::testing::TestWithParam<const char *> {};

} // namespace

TEST_P(PaperTrace, EnumeratorAndPredictorFindTheExpectedRaces) {
  Pairs expected;
  std::string text = readTrace(GetParam(), &expected);
  expectModel(text, expected);
}

INSTANTIATE_TEST_SUITE_P(
    Papers, PaperTrace,
    ::testing::Values(RACEPREDICT_EXAMPLES "/huang_fig1.rpt.txt",
                      RACEPREDICT_TEST_INPUTS "/paper/huang_fig2_case1.rpt.txt",
                      RACEPREDICT_TEST_INPUTS "/paper/huang_fig2_case2.rpt.txt",
                      RACEPREDICT_TEST_INPUTS "/paper/huang_fig4.rpt.txt",
                      RACEPREDICT_TEST_INPUTS "/paper/carril_fig1_5.rpt.txt",
                      RACEPREDICT_TEST_INPUTS "/paper/carril_fig5_9.rpt.txt",
                      // Issue 20: write dependences, and the same trace
                      // with the plain rule and with the value observed.
                      RACEPREDICT_TEST_INPUTS "/deps/write_deps_glob.rpt.txt",
                      RACEPREDICT_TEST_INPUTS
                      "/deps/write_deps_glob_plain.rpt.txt",
                      RACEPREDICT_TEST_INPUTS
                      "/deps/write_deps_glob_observed.rpt.txt"));

// "Schedules": the return half of a wait re-acquires its mutex, so it
// waits for the notifier to leave its critical section.
TEST(EnumeratorRules, WaitReturnNeedsTheMutex) {
  expectModel("t1 acq m\nt2 acq m\nt2 signal c\nt2 wr x 1\nt2 rel m\n"
              "t1 wait c m <- 2\nt1 rd x 1\nt1 rel m\n",
              {});
}

// "Schedules": a notify only wakes a thread that already waits, so what the
// waiter did before waiting precedes what the notifier does after it.
TEST(EnumeratorRules, NotifyNeedsTheWaitersReleaseHalf) {
  expectModel("t1 acq m\nt1 wr x 1\nt2 signal c\nt2 rd x 1\n"
              "t1 wait c m <- 2\nt1 rel m\n",
              {});
}

// "Values and concreteness": a trylock that failed against a read-mode
// holder never counts as re-failing, so the branch after it is stuck; a
// write-mode holder can make it fail again.
TEST(EnumeratorRules, TryfailRefailsOnlyAgainstWriters) {
  expectModel("t1 racq m\nt2 tryfail m\nt2 br\nt2 wr x 1\nt1 rel m\n"
              "t1 rd x 1\n",
              {}, /*reproducible=*/false);
  expectModel("t1 acq m\nt2 tryfail m\nt2 br\nt2 wr x 1\nt1 rel m\n"
              "t1 rd x 1\n",
              {{3, 5}});
}

// "Values and concreteness": a write stores its value only if every earlier
// read of its thread was concrete, so t3's branch needs t2 to have read
// y == 1, hence t1's write of z comes first.
TEST(EnumeratorRules, WriteValueNeedsConcreteReads) {
  expectModel("init x 0\ninit y 0\nt1 wr z 1\nt1 wr y 1\nt2 rd y 1\n"
              "t2 wr x 1\nt3 rd x 1\nt3 br\nt3 rd z 1\n",
              {{1, 2}, {3, 4}});
  // With a precise branch that does not depend on the read, z races too.
  expectModel("init x 0\ninit y 0\nt1 wr z 1\nt1 wr y 1\nt2 rd y 1\n"
              "t2 wr x 1\nt3 rd x 1\nt3 br <-\nt3 rd z 1\n",
              {{0, 6}, {1, 2}, {3, 4}});
}

// "Values and concreteness" with write dependences (issue 20): t2's write
// of x depends on nothing, so t3's branch needs nothing of t2's read of y
// and t1's write of z races with t3's read; once the write depends on the
// read (or on all reads, the plain rule), it does not.
TEST(EnumeratorRules, WriteValueNeedsOnlyItsDependences) {
  expectModel("init x 0\ninit y 0\nt1 wr z 1\nt1 wr y 1\nt2 rd y 1\n"
              "t2 wr x 1 <-\nt3 rd x 1\nt3 br <- 4\nt3 rd z 1\n",
              {{0, 6}, {1, 2}, {3, 4}});
  expectModel("init x 0\ninit y 0\nt1 wr z 1\nt1 wr y 1\nt2 rd y 1\n"
              "t2 wr x 1 <- 2\nt3 rd x 1\nt3 br <- 4\nt3 rd z 1\n",
              {{1, 2}, {3, 4}});
  // A read no value-relevant event depends on may see anything: t2's
  // write of x carries ⊥ then, but only t3's read of it would mind.
  expectModel("init y 0\nt1 wr y 1\nt2 rd y 1\nt2 wr x 1 <- 1\n"
              "t2 wr w 1 <-\nt3 rd w 1\nt3 br <- 4\nt3 wr y 2\n",
              {{0, 1}, {0, 6}, {3, 4}});
}

// "Schedules": semaphore counts, barrier generations, fork and join.
TEST(EnumeratorRules, SemaphoresBarriersForkJoin) {
  expectModel("t1 wr x 1\nt1 post s\nt2 semwait s\nt2 rd x 1\n", {});
  expectModel("t3 post s\nt1 wr x 1\nt1 post s\nt2 semwait s\nt2 rd x 1\n",
              {{1, 4}});
  expectModel("t1 wr x 1\nt1 barrier b 2\nt2 barrier b 2\nt2 rd x 1\n", {});
  expectModel("t1 wr x 1\nt1 fork t2\nt2 rd x 1\nt2 wr y 1\nt1 join t2\n"
              "t1 rd y 1\n",
              {});
}

// Found by the differential test (seed 9001656, minimised): t0's wait
// released l before the cut although its return (after t1's signal) comes
// after it; the race query wrongly put the release half after the cut too.
TEST(Regressions, WaitReleaseHalfMayPrecedeTheCut) {
  expectModel("t0 acq l\nt0 fork t1\nt1 acq l\nt1 wr y 1\nt2 wr y 0\n"
              "t1 signal c\nt1 rel l\nt0 wait c l <- 5\nt0 rel l\n",
              {{3, 4}});
}
