//===- deadlock_candidates_test.cpp - Ownership sets and hangs ------------===//
//
// The exact candidates of small traces: which members, which search found
// them, and the conditions left to the solver (abandoned-lock holders that
// must finish, forks that must have run), connectivity, groups, filters
// and limits.
//
#include "racepredict/analysis/deadlock_candidates.h"
#include "racepredict/trace/text_format.h"

#include "deadlock_fixture.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>

using namespace racepredict;
using analysis::DeadlockCandidate;
using analysis::DeadlockCandidateOptions;
using analysis::DeadlockCandidateStats;

using Fixture = testsupport::DeadlockFixture;
using testsupport::events;

TEST(DeadlockCandidates, LockCycleIsAnOwnershipSet) {
  Fixture f(R"(
t1 acq a
t1 acq b
t1 rel b
t1 rel a
t2 acq b
t2 acq a
t2 rel a
t2 rel b
)");
  DeadlockCandidateStats st;
  auto cs = f.find({}, &st);
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(events(cs[0]), (std::vector<uint32_t>{1, 5}));
  EXPECT_TRUE(cs[0].ownership);
  EXPECT_FALSE(cs[0].hang);
  EXPECT_TRUE(cs[0].connected);
  EXPECT_TRUE(cs[0].locksOnly);
  EXPECT_EQ(cs[0].finishedHolders,
            (std::vector<std::vector<analysis::ThreadId>>{{}, {}}));
  EXPECT_TRUE(cs[0].forksDone.empty());
  EXPECT_EQ(st.lockCycles, 1u);
  EXPECT_EQ(st.blockingEvents, 4u);
  EXPECT_FALSE(st.truncated);
}

// A try-acquire that succeeded (std::lock's second mutex, a trylock with
// back-off) is never a member's request: the opposite orders give no
// cycle. Its lock still counts as held: a plain acquisition under it
// closes a cycle with the other thread's plain one.
TEST(DeadlockCandidates, ATryAcquireIsNeverTheBlockedRequest) {
  Fixture f(R"(
t1 acq a
t1 acq b try
t1 rel b
t1 rel a
t2 acq b
t2 acq a try
t2 rel a
t2 rel b
t1 acq c try
t1 acq d
t1 rel d
t1 rel c
t2 acq d
t2 acq c
t2 rel c
t2 rel d
t1 seminit s 1
t1 semwait s try
t2 semwait s try
)");
  DeadlockCandidateStats st;
  auto cs = f.find({}, &st);
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(events(cs[0]), (std::vector<uint32_t>{9, 13}));
  EXPECT_TRUE(cs[0].ownership);
  // t1's acq a and d, t2's acq b, d and c; no try-acquire.
  EXPECT_EQ(st.blockingEvents, 5u);
  // Without the marks t2's semwait after t1's would hang once t1 ends.
  EXPECT_EQ(st.hangs, 0u);
}

TEST(DeadlockCandidates, AbandonedLockNeedsItsHolderFinishedAndTheFork) {
  // t2's first event waits for m, which t1 never releases; t2 must exist.
  Fixture f(R"(
t0 fork t1
t0 fork t2
t2 acq m
t2 rel m
t1 acq m
)");
  auto cs = f.find();
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(events(cs[0]), (std::vector<uint32_t>{2}));
  EXPECT_FALSE(cs[0].members[0].unforked);
  EXPECT_EQ(cs[0].finishedHolders,
            (std::vector<std::vector<analysis::ThreadId>>{{1}}));
  EXPECT_EQ(cs[0].forksDone, (std::vector<uint32_t>{1}));
}

TEST(DeadlockCandidates, SemaphoreHangNeedsEverybodyElseFinished) {
  Fixture f(R"(
t0 seminit s 0
t0 fork t1
t0 post s
t1 semwait s
t1 post s
t0 semwait s
t0 join t1
)");
  DeadlockCandidateStats st;
  auto cs = f.find({}, &st);
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(events(cs[0]), (std::vector<uint32_t>{3, 6}));
  EXPECT_TRUE(cs[0].hang);
  EXPECT_FALSE(cs[0].ownership);
  EXPECT_EQ(st.hangs, 1u);
  EXPECT_EQ(st.ownership, 0u);
}

TEST(DeadlockCandidates, MustHappenBeforeFilterDropsOrderedRequests) {
  // The fork orders t1's nesting before t2's: a cut with both requests
  // next is impossible; without the filter the solver has to say so.
  Fixture f(R"(
t1 acq a
t1 acq b
t1 rel b
t1 rel a
t1 fork t2
t2 acq b
t2 acq a
t2 rel a
t2 rel b
)");
  EXPECT_TRUE(f.find().empty());
  DeadlockCandidateOptions o;
  o.filters = false;
  auto cs = f.find(o);
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(events(cs[0]), (std::vector<uint32_t>{1, 6}));
}

TEST(DeadlockCandidates, TwoIndependentCyclesAndTheirUnion) {
  Fixture f(R"(
t1 acq a
t1 acq b
t1 rel b
t1 rel a
t2 acq b
t2 acq a
t2 rel a
t2 rel b
t3 acq c
t3 acq d
t3 rel d
t3 rel c
t4 acq d
t4 acq c
t4 rel c
t4 rel d
)");
  auto cs = f.find();
  ASSERT_EQ(cs.size(), 3u);
  EXPECT_EQ(events(cs[0]), (std::vector<uint32_t>{1, 5}));
  EXPECT_TRUE(cs[0].connected);
  EXPECT_EQ(events(cs[1]), (std::vector<uint32_t>{1, 5, 9, 13}));
  EXPECT_FALSE(cs[1].connected);
  EXPECT_EQ(events(cs[2]), (std::vector<uint32_t>{9, 13}));
  EXPECT_TRUE(cs[2].connected);
  EXPECT_NE(cs[0].group, cs[2].group);
}

TEST(DeadlockCandidates, ALoopOverTheSameLocksIsOneGroup) {
  // Without source locations, thread + operation + lock stand for the
  // instruction: both iterations' cycles are one group.
  Fixture f(R"(
t1 acq a
t1 acq b
t1 rel b
t1 rel a
t1 acq a
t1 acq b
t1 rel b
t1 rel a
t2 acq b
t2 acq a
t2 rel a
t2 rel b
)");
  auto cs = f.find();
  ASSERT_EQ(cs.size(), 2u);
  EXPECT_EQ(events(cs[0]), (std::vector<uint32_t>{1, 9}));
  EXPECT_EQ(events(cs[1]), (std::vector<uint32_t>{5, 9}));
  EXPECT_EQ(cs[0].group, cs[1].group);
}

TEST(DeadlockCandidates, LimitsTruncate) {
  Fixture f(R"(
t1 acq a
t1 acq b
t1 rel b
t1 rel a
t1 acq a
t1 acq b
t1 rel b
t1 rel a
t2 acq b
t2 acq a
t2 rel a
t2 rel b
)");
  DeadlockCandidateOptions o;
  o.maxCandidates = 1;
  DeadlockCandidateStats st;
  EXPECT_EQ(f.find(o, &st).size(), 1u);
  EXPECT_TRUE(st.truncated);
  o.maxCandidates = 0;
  o.maxSearchSteps = 3;
  DeadlockCandidateStats st2;
  f.find(o, &st2);
  EXPECT_TRUE(st2.truncated);
}

namespace {

/// Two threads nesting a/b and b/a `rounds` times each, after `prefix`
/// and before `suffix`: the lock graph's one cycle has rounds^2 instances.
std::string opposedLoops(int rounds, const std::string &prefix = "",
                         const std::string &suffix = "") {
  std::string text = prefix;
  for (const char *nest : {"t1 acq a\nt1 acq b\nt1 rel b\nt1 rel a\n",
                           "t2 acq b\nt2 acq a\nt2 rel a\nt2 rel b\n"})
    for (int r = 0; r < rounds; ++r)
      text += nest;
  return text + suffix;
}

} // namespace

TEST(DeadlockCandidates, InstancesOfAClassSetComeInCandidateOrder) {
  // One solution of the search over classes stands for all 30 x 30
  // combinations, produced sorted by members as the predictor takes them.
  Fixture f(opposedLoops(30));
  DeadlockCandidateStats st;
  auto cs = f.find({}, &st);
  EXPECT_EQ(st.ownershipSets, 1u);
  ASSERT_EQ(cs.size(), 900u);
  for (size_t i = 0; i < cs.size(); ++i)
    EXPECT_EQ(events(cs[i]),
              (std::vector<uint32_t>{uint32_t(1 + 4 * (i / 30)),
                                     uint32_t(121 + 4 * (i % 30))}));
  EXPECT_EQ(st.ownership, 900u);
  EXPECT_EQ(st.lockCycles, 900u);
}

TEST(DeadlockCandidates, ASkippedGroupIsNeverEnumerated) {
  Fixture f(opposedLoops(1000));
  DeadlockCandidateStats st;
  analysis::DeadlockCandidateStream stream(*f.idx, *f.mhb, {}, &st);
  DeadlockCandidate c;
  ASSERT_TRUE(stream.next(c));
  EXPECT_EQ(events(c), (std::vector<uint32_t>{1, 4001}));
  stream.skipGroup(c.group);
  EXPECT_FALSE(stream.next(c));
  EXPECT_EQ(st.ownership, 1u);
  EXPECT_FALSE(st.truncated);
  EXPECT_LT(st.searchSteps, 100u); // not the 10^6 combinations
}

TEST(DeadlockCandidates, MustHappenBeforeRulesOutASetBeforeItsInstances) {
  // Main joining t2 has joined t1: t1 cannot be blocked then. The classes
  // {t1, t2, main at join t2} are ruled out by their first and last
  // positions, before any of their 100 x 100 combinations.
  Fixture f(opposedLoops(100, "t0 fork t1\nt0 fork t2\n",
                         "t0 join t1\nt0 join t2\n"));
  DeadlockCandidateStats all;
  EXPECT_EQ(f.find({}, &all).size(), 20000u); // the cycle, and with join t1
  EXPECT_EQ(all.ownershipSets, 2u);
  DeadlockCandidateStats st;
  analysis::DeadlockCandidateStream stream(*f.idx, *f.mhb, {}, &st);
  DeadlockCandidate c;
  std::vector<std::vector<uint32_t>> firsts;
  while (stream.next(c)) {
    firsts.push_back(events(c));
    stream.skipGroup(c.group);
  }
  EXPECT_EQ(firsts,
            (std::vector<std::vector<uint32_t>>{{3, 403}, {3, 403, 802}}));
  EXPECT_LT(st.searchSteps, 1000u);
}

// Thread churn: main creates and joins `pairs` pairs of threads that take
// a and b in opposite orders (test/e2e/programs/churn_lock_order.c).
std::string churn(int pairs) {
  std::string text;
  for (int p = 0; p < pairs; ++p) {
    std::string f = "t" + std::to_string(2 * p + 1),
                b = "t" + std::to_string(2 * p + 2);
    text += "t0 fork " + f + "\nt0 fork " + b + "\n" + f + " acq a\n" + f +
            " acq b\n" + f + " rel b\n" + f + " rel a\n" + b + " acq b\n" + b +
            " acq a\n" + b + " rel a\n" + b + " rel b\n" + "t0 join " + f +
            "\nt0 join " + b + "\n";
  }
  return text;
}

TEST(DeadlockCandidates, DefaultReportTakesEveryNeverCreatedThreadAtOnce) {
  // Blocked at its first join, main never creates the later pairs:
  // --all-pairs lists every subset of those threads, the default report
  // one set with all of them (the same cut).
  Fixture f(churn(4));
  EXPECT_EQ(f.find().size(), 89u);
  DeadlockCandidateOptions o;
  o.defaultReport = true;
  std::vector<std::vector<uint32_t>> got;
  for (const auto &c : f.find(o))
    got.push_back(events(c));
  // Each pair's cycle, alone and with main at its join of the pair's
  // first thread and every later thread (first events 14, 18, ...) never
  // created.
  EXPECT_EQ(got, (std::vector<std::vector<uint32_t>>{
                     {3, 7},
                     {3, 7, 10, 14, 18, 26, 30, 38, 42},
                     {15, 19},
                     {15, 19, 22, 26, 30, 38, 42},
                     {27, 31},
                     {27, 31, 34, 38, 42},
                     {39, 43},
                     {39, 43, 46}}));
}

TEST(DeadlockCandidates, ChurnedPairsAreNotCombinedWithLaterPairs) {
  // Each pair's cycle, alone and with main at its join: 2 sets per pair.
  // A member whose partner is left out has lock holders only in later
  // pairs, which it can never be combined with (main joined it before
  // creating them): its branch ends at once. Before, every such branch
  // went on to the last thread, and the search was cubic; then each
  // solution still decided every thread (quadratic, below: linear).
  const int pairs = 200;
  Fixture f(churn(pairs));
  DeadlockCandidateOptions o;
  o.defaultReport = true;
  DeadlockCandidateStats st;
  auto got = f.find(o, &st);
  ASSERT_EQ(got.size(), 2u * pairs);
  EXPECT_EQ(st.ownershipSets, 2u * pairs);
  EXPECT_FALSE(st.truncated);
  // The last pair (first events 12 * 199 + 3, + 7) and main at its join.
  EXPECT_EQ(events(got.back()), (std::vector<uint32_t>{2391, 2395, 2398}));
  size_t threads = 2 * pairs + 1;
  EXPECT_LT(st.searchSteps, 3 * threads * threads);
}

TEST(DeadlockCandidates, ChurnAtScaleDecidesOnlyThreadsWithAChoice) {
  // 3,000 pairs, 6,001 threads: the search jumps over the threads whose
  // decision is forced — those main joined before the member it is
  // deciding was forked (ended before it), those forked after a member
  // (never meeting it), and those main never creates, blocked at a join
  // (members of the default report's set, kept implicit). A few steps per
  // thread; deciding every thread of every solution took 3.6 * 10^7
  // steps, past the 20M-step budget. The first candidates are the first
  // pair's cycle, alone and with main at its join and every thread of the
  // later pairs never created (merged in by event when taken).
  const uint32_t pairs = 3000;
  Fixture f(churn(pairs));
  DeadlockCandidateOptions o;
  o.defaultReport = true;
  DeadlockCandidateStats st;
  analysis::DeadlockCandidateStream stream(*f.idx, *f.mhb, o, &st);
  EXPECT_EQ(st.ownershipSets, 2u * pairs);
  EXPECT_FALSE(st.truncated);
  EXPECT_LT(st.searchSteps, 10u * (2 * pairs + 1));
  DeadlockCandidate c;
  ASSERT_TRUE(stream.next(c));
  EXPECT_EQ(events(c), (std::vector<uint32_t>{3, 7}));
  ASSERT_TRUE(stream.next(c));
  std::vector<uint32_t> want = {3, 7, 10};
  for (uint32_t p = 1; p < pairs; ++p) // first events of the later pairs
    want.insert(want.end(), {12 * p + 2, 12 * p + 6});
  EXPECT_EQ(events(c), want);
  for (size_t m = 3; m < c.members.size(); ++m)
    EXPECT_TRUE(c.members[m].unforked && c.finishedHolders[m].empty());
  EXPECT_FALSE(c.locksOnly);
}
