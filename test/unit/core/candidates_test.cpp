//===- candidates_test.cpp - Conflicting pairs and the sound filters ------===//
#include "racepredict/analysis/candidates.h"
#include "racepredict/trace/text_format.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace racepredict;
using analysis::EventId;

namespace {
trace::Trace parse(const std::string &text) {
  std::istringstream in(text);
  auto t = trace::parseTextTrace(in, "cands.rpt.txt");
  EXPECT_TRUE(static_cast<bool>(t)) << (t ? "" : t.error().message);
  return t ? std::move(*t) : trace::Trace{};
}
std::vector<std::pair<EventId, EventId>>
pairs(const std::vector<analysis::Candidate> &c) {
  std::vector<std::pair<EventId, EventId>> out;
  for (auto &x : c)
    out.emplace_back(x.first, x.second);
  return out;
}
} // namespace

TEST(Candidates, ConflictRequiresAWriteDifferentThreadsAndNotBothAtomic) {
  trace::Trace t = parse("t1 rd x 0\nt2 rd x 0\n"   // 0,1: two reads
                         "t1 awr a 1\nt2 ard a 1\n" // 2,3: both atomic
                         "t1 wr y 1\nt1 rd y 1\n"   // 4,5: same thread
                         "t2 wr x 1\n"              // 6: conflicts 0
                         "t2 ard y 1\n");           // 7: atomic vs plain
  analysis::TraceIndex idx(t);
  analysis::MustHappenBefore mhb(idx);
  analysis::CandidateStats st;
  auto c = analysis::findCandidates(idx, mhb, true, &st);
  using P = std::vector<std::pair<EventId, EventId>>;
  EXPECT_EQ(pairs(c), (P{{0, 6}, {4, 7}}));
  EXPECT_EQ(st.conflicting, 2u);
}

TEST(Candidates, FiltersDropOnlyOrderedOrCommonlyLockedPairs) {
  trace::Trace t = parse("t1 wr x 1\n"                     // 0
                         "t1 fork t2\n"                    // 1
                         "t2 wr x 2\n"                     // 2: after 0 (fork)
                         "t2 acq m\nt2 wr y 1\nt2 rel m\n" // 3-5
                         "t3 acq m\nt3 wr y 2\nt3 rel m\n" // 6-8: locked
                         "t3 racq r\nt3 wr z 1\nt3 rel r\n"
                         "t2 racq r\nt2 wr z 2\nt2 rel r\n"); // read mode
  analysis::TraceIndex idx(t);
  analysis::MustHappenBefore mhb(idx);
  analysis::CandidateStats st;
  auto c = analysis::findCandidates(idx, mhb, true, &st);
  using P = std::vector<std::pair<EventId, EventId>>;
  // (0,2) is fork-ordered, (4,7) share m; read-mode r does not protect.
  EXPECT_EQ(pairs(c), (P{{10, 13}}));
  EXPECT_EQ(st.filteredMhb, 1u);
  EXPECT_EQ(st.filteredLockset, 1u);
  analysis::CandidateStats all;
  EXPECT_EQ(analysis::findCandidates(idx, mhb, false, &all).size(), 3u);
}

TEST(Candidates, AllocationGenerationsSeparateMemoryReuse) {
  trace::Trace t = parse("t1 alloc h 8\nt1 wr h 1\nt1 free h 8\n"
                         "t2 alloc h 8\nt2 wr h 2\n");
  analysis::TraceIndex idx(t);
  analysis::MustHappenBefore mhb(idx);
  analysis::CandidateStats st;
  EXPECT_TRUE(analysis::findCandidates(idx, mhb, false, &st).empty());
}

TEST(Candidates, GroupsBySourceLocationPair) {
  trace::Trace t = parse("t1 wr x 1 @a.c:1\nt2 rd x 1 @b.c:2\n"
                         "t1 wr x 2 @a.c:1\nt2 rd x 2 @b.c:2\n"
                         "t1 wr y 1\nt2 rd y 1\n");
  analysis::TraceIndex idx(t);
  analysis::MustHappenBefore mhb(idx);
  analysis::CandidateStats st;
  auto c = analysis::findCandidates(idx, mhb, true, &st);
  ASSERT_EQ(c.size(), 5u);
  // All x pairs share the signature (a.c:1, b.c:2); y is its own group.
  for (auto &x : c)
    if (t.objName(t.events[x.first]) == "x")
      EXPECT_EQ(x.group, c[0].group);
    else
      EXPECT_NE(x.group, c[0].group);
}
