//===- deadlock_stream_test.cpp - The candidate stream at scale -----------===//
//
// The deadlock candidate stream on thread churn by several creators, whose
// ownership sets are (pairs per creator)^creators in a few dozen groups:
// the first candidate of each group, the sets kept per group (the others
// found again when needed), and a search stopped at its budget.
//
#include "racepredict/analysis/deadlock_candidates.h"

#include "deadlock_fixture.h"

#include <gtest/gtest.h>

#include <set>

using namespace racepredict;
using analysis::DeadlockCandidate;
using analysis::DeadlockCandidateOptions;
using analysis::DeadlockCandidateStats;

using Fixture = testsupport::DeadlockFixture;
using testsupport::events;

namespace {

// Thread churn by several creators: main forks `creators` threads, each of
// which creates and joins `pairs` pairs of threads taking a and b in
// opposite orders. A pair of one creator can deadlock with a pair of
// another, so the ownership sets are (pairs per creator)^creators
// combinations; their groups (the members' lines) are few.
std::string churnByCreators(int creators, int pairs) {
  // Source lines, as recorded: groups are by the members' lines.
  auto at = [](const char *line) {
    return std::string(" @churn.c:") + line + ":3@f @-\n";
  };
  std::string text;
  int next = creators + 1;
  for (int c = 1; c <= creators; ++c)
    text += "t0 fork t" + std::to_string(c) + "\n";
  for (int c = 1; c <= creators; ++c) {
    std::string cr = "t" + std::to_string(c);
    for (int p = 0; p < pairs; ++p) {
      std::string f = "t" + std::to_string(next++),
                  b = "t" + std::to_string(next++);
      text += cr + " fork " + f + "\n" + cr + " fork " + b + "\n" + f +
              " acq a" + at("10") + f + " acq b" + at("11") + f + " rel b\n" +
              f + " rel a\n" + b + " acq b" + at("20") + b + " acq a" +
              at("21") + b + " rel a\n" + b + " rel b\n" + cr + " join " + f +
              at("30") + cr + " join " + b + at("31");
    }
  }
  for (int c = 1; c <= creators; ++c)
    text += "t0 join t" + std::to_string(c) + at("40");
  return text;
}

/// Every candidate of the stream, each group taken to its end.
std::vector<std::vector<uint32_t>> allOf(Fixture &f, DeadlockCandidateOptions o,
                                         DeadlockCandidateStats *st) {
  std::vector<std::vector<uint32_t>> out;
  for (const auto &c : f.find(o, st)) {
    out.push_back(events(c));
    for (const auto &m : c.members)
      out.back().push_back(m.unforked);
    out.back().push_back(c.group);
  }
  return out;
}

} // namespace

TEST(DeadlockStream, SkippedGroupsOfManySetsCostNoOrdering) {
  // 3 creators x 3 pairs: thousands of ownership sets in a few dozen
  // groups. The stream keeps a heap per group: taking each group's first
  // candidate and skipping the group compares candidates about once per
  // set (building the heaps), not log(sets) times per set (popping every
  // skipped set from one heap of all of them). The first candidates per
  // group are exactly those of the whole sorted list.
  Fixture f(churnByCreators(3, 3));
  DeadlockCandidateOptions o;
  o.defaultReport = true;
  std::vector<std::vector<uint32_t>> want;
  std::set<uint32_t> seen;
  for (const auto &c : f.find(o))
    if (seen.insert(c.group).second)
      want.push_back(events(c));
  DeadlockCandidateStats st;
  analysis::DeadlockCandidateStream stream(*f.idx, *f.mhb, o, &st);
  std::vector<std::vector<uint32_t>> got;
  DeadlockCandidate c;
  while (stream.next(c)) {
    got.push_back(events(c));
    stream.skipGroup(c.group);
  }
  EXPECT_EQ(got, want);
  EXPECT_GT(st.ownershipSets, 1000u);
  EXPECT_LT(got.size(), st.ownershipSets / 10);
  EXPECT_LT(st.orderComparisons, 3 * st.ownershipSets);
  // The first: creator 3's first pair in its cycle (t16 at b holding a,
  // 78; t17 at a holding b, 82); the first pairs of creators 1 and 2
  // blocked at their first requests of a and b (5, 9; 41, 45), their
  // creators at the join of the first (13, 49), and their later pairs
  // never created (17, 21, 29, 33; 53, 57, 65, 69).
  ASSERT_FALSE(got.empty());
  EXPECT_EQ(got.front(),
            (std::vector<uint32_t>{5, 9, 13, 17, 21, 29, 33, 41, 45, 49, 53, 57,
                                   65, 69, 78, 82}));
}

TEST(DeadlockStream, AFewSetsKeptPerGroupGiveTheWholeSortedList) {
  // Default report, 3 creators x 2 pairs: 10,530 ownership sets in 83
  // groups. Keeping one set per group (and a sentinel) and searching again
  // for the others whenever a group is taken past its sentinel gives the
  // very list of keeping them all — every group taken to its end here
  // (nothing skipped), the worst case for searching again: doubling what is
  // kept, a group of n sets costs about log2(n) more searches, not n.
  Fixture f(churnByCreators(3, 2));
  DeadlockCandidateOptions o;
  o.defaultReport = true;
  o.setsPerGroup = 0;
  DeadlockCandidateStats all;
  auto want = allOf(f, o, &all);
  EXPECT_EQ(all.ownershipSets, 10530u);
  EXPECT_FALSE(all.truncated);
  for (size_t kept : {1, 8}) {
    o.setsPerGroup = kept;
    DeadlockCandidateStats st;
    EXPECT_EQ(allOf(f, o, &st), want) << kept << " kept per group";
    EXPECT_EQ(st.ownershipSets, all.ownershipSets);
    EXPECT_FALSE(st.truncated);
    // A few more searches (sentinels of every group refilled at once).
    EXPECT_GT(st.searchSteps, all.searchSteps);
    EXPECT_LT(st.searchSteps, 16 * all.searchSteps);
  }
}

TEST(DeadlockStream, ADeadlockBehindManySetsOfItsGroupIsStillFound) {
  // One creator, 12 pairs in opposite orders: each pair is an ownership
  // set of the one group {line 10, line 20} ... and with 2 kept per group
  // the candidate of the last pair is found by the searches again.
  Fixture f(churnByCreators(1, 12));
  DeadlockCandidateOptions o;
  o.defaultReport = true;
  o.setsPerGroup = 2;
  auto cs = f.find(o);
  o.setsPerGroup = 0;
  auto all = f.find(o);
  ASSERT_EQ(cs.size(), all.size());
  for (size_t i = 0; i < cs.size(); ++i)
    EXPECT_EQ(events(cs[i]), events(all[i]));
}

TEST(DeadlockStream, ASearchStoppedAtItsBudgetStillGivesWhatItFound) {
  // 3 creators x 3 pairs: the budget runs out inside the ownership search.
  // The default report still takes the sets found (each group's first),
  // reported truncated; --all-pairs would decide every one of them and
  // takes none, as before.
  Fixture f(churnByCreators(3, 3));
  DeadlockCandidateOptions o;
  o.defaultReport = true;
  o.maxSearchSteps = 20000;
  DeadlockCandidateStats st;
  analysis::DeadlockCandidateStream stream(*f.idx, *f.mhb, o, &st);
  EXPECT_TRUE(st.truncated);
  EXPECT_GT(st.ownershipSets, 0u);
  DeadlockCandidate c;
  std::set<uint32_t> groups;
  while (stream.next(c)) {
    EXPECT_TRUE(groups.insert(c.group).second);
    stream.skipGroup(c.group);
  }
  EXPECT_FALSE(groups.empty());
  EXPECT_TRUE(st.truncated);
  o.defaultReport = false;
  DeadlockCandidateStats st2;
  EXPECT_TRUE(f.find(o, &st2).empty());
  EXPECT_TRUE(st2.truncated);
}
