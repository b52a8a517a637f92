//===- matcher_test.cpp - Matching, candidates and the pattern check ------===//
#include "racepredict/property/candidates.h"
#include "racepredict/property/parser.h"
#include "racepredict/property/pattern_check.h"
#include "racepredict/trace/text_format.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

using namespace racepredict;
using namespace racepredict::property;

namespace {

trace::Trace parseTrace(const std::string &text) {
  std::istringstream in(text);
  auto t = trace::parseTextTrace(in, "t.rpt.txt");
  EXPECT_TRUE(static_cast<bool>(t)) << (t ? "" : t.error().message);
  return t ? std::move(*t) : trace::Trace{};
}

Property parseOne(const std::string &text) {
  auto r = parseProperties(text, "p.props");
  EXPECT_TRUE(static_cast<bool>(r)) << (r ? "" : r.error().message);
  return r ? (*r)[0] : Property{};
}

} // namespace

TEST(PropertyMatcher, CanonicalNames) {
  EXPECT_EQ(canonical("0x10"), "16");
  EXPECT_EQ(canonical("16"), "16");
  EXPECT_EQ(canonical("-3"), "-3");
  EXPECT_EQ(canonical("0xffffffffffffffff"), "-1"); // a 64-bit key
  EXPECT_EQ(canonical("f1"), "f1");
  EXPECT_EQ(canonical("0x"), "0x");
  EXPECT_EQ(canonical("12ab"), "12ab");
}

TEST(PropertyMatcher, ArgumentsObjectsThreadsAndBindings) {
  trace::Trace t = parseTrace("t0 ev open 0x10 rw\n"    // 0
                              "t0 acq 16\n"             // 1
                              "t1 ev read 16\n"         // 2
                              "t1 ev read 17 extra\n"); // 3
  TraceMatcher m(t);
  Property p = parseOne("property q(f):\n"
                        "    forbid t1: open(f, rw); t1: @acq(f); "
                        "t2: read(f)\n");
  const Pattern &pat = p.patterns[0];
  std::vector<PreparedEvent> steps;
  for (const auto &s : pat.steps)
    steps.push_back(m.prepare(s));
  Binding b = Binding::empty(pat);
  ASSERT_TRUE(m.matches(steps[0], 0, b, true));
  EXPECT_EQ(m.canonicalName(b.vars[0]), "16"); // 0x10 read as a number
  EXPECT_EQ(b.threads[0], 0u);
  EXPECT_TRUE(m.matches(steps[1], 1, b, true)); // lock 16 == f
  Binding same = b;
  EXPECT_FALSE(m.matches(steps[2], 3, same, true)); // 17 != 16
  EXPECT_EQ(same, b);                               // unchanged on failure
  EXPECT_TRUE(m.matches(steps[2], 2, b, true));
  EXPECT_EQ(b.threads[1], 1u);
  // t2 may not be t1's thread.
  Binding fresh = Binding::empty(pat);
  ASSERT_TRUE(m.matches(steps[0], 0, fresh, true));
  EXPECT_FALSE(m.matches(steps[2], 1, fresh, true));
  // A literal the trace never mentions makes the pattern impossible.
  Property none = parseOne("property q:\n    forbid open(nothere)\n");
  EXPECT_TRUE(m.prepare(none.patterns[0].steps[0]).impossible);
  // Further arguments are ignored; missing ones fail.
  EXPECT_TRUE(m.matchesStatically(steps[2], 3));
  Property two = parseOne("property q:\n    forbid read(_, _)\n");
  PreparedEvent r2 = m.prepare(two.patterns[0].steps[0]);
  EXPECT_FALSE(m.matchesStatically(r2, 2));
  EXPECT_TRUE(m.matchesStatically(r2, 3));
}

TEST(PropertyCandidates, PruneByMustHappenBeforeAndMarkObserved) {
  trace::Trace t = parseTrace("t0 fork t1\n"      // 0
                              "t0 ev open f\n"    // 1
                              "t0 ev close f\n"   // 2
                              "t1 ev use f\n"     // 3
                              "t0 join t1\n"      // 4
                              "t0 ev use f\n"     // 5 after join: ordered
                              "t0 ev close f\n"); // 6
  analysis::TraceIndex idx(t);
  analysis::MustHappenBefore mhb(idx);
  TraceMatcher m(t);
  Property p =
      parseOne("property q(f):\n    forbid close(f); [no open(f)] use(f)\n");
  CandidateStats st;
  auto cands = findCandidates(idx, mhb, m, p, {}, &st);
  // (2,3) is possible and observed; (2,5) observed; (6,3), (6,5) ordered
  // backwards by must-happen-before.
  ASSERT_EQ(cands.size(), 2u);
  EXPECT_EQ(cands[0].events, (std::vector<EventId>{2, 3}));
  EXPECT_TRUE(cands[0].observed);
  EXPECT_EQ(cands[0].gapEvents[1], std::vector<EventId>{});
  EXPECT_EQ(cands[1].events, (std::vector<EventId>{2, 5}));
  EXPECT_EQ(st.prunedOrder, 2u);
  // Without the filters every matching tuple stays, gap events included.
  CandidateOptions nf;
  nf.filters = false;
  auto all = findCandidates(idx, mhb, m, p, nf, &st);
  EXPECT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0].gapEvents[1], std::vector<EventId>{1});
}

TEST(PropertyCandidates, GapCertainlyInsideIsPruned) {
  trace::Trace t = parseTrace("t0 ev close f\n" // 0
                              "t0 ev open f\n"  // 1
                              "t0 ev use f\n"); // 2
  analysis::TraceIndex idx(t);
  analysis::MustHappenBefore mhb(idx);
  TraceMatcher m(t);
  Property p =
      parseOne("property q(f):\n    forbid close(f); [no open(f)] use(f)\n");
  CandidateStats st;
  EXPECT_TRUE(findCandidates(idx, mhb, m, p, {}, &st).empty());
  EXPECT_EQ(st.prunedGap, 1u);
}

TEST(PropertyPatternCheck, ExplainsWhatFails) {
  trace::Trace t = parseTrace("t0 ev close f\n" // 0
                              "t0 ev open f\n"  // 1
                              "t1 ev use f\n"   // 2
                              "t1 ev use g\n"); // 3
  TraceMatcher m(t);
  Property p =
      parseOne("property q(f):\n    forbid close(f); [no open(f)] use(f)\n");
  const Pattern &pat = p.patterns[0];
  EXPECT_EQ(checkPatternOnSchedule(m, pat, {0, 2}, {0, 2}), std::nullopt);
  EXPECT_EQ(checkPatternOnSchedule(m, pat, {0, 2}, {0, 1, 2}),
            "event 1 at position 2 matches the gap item open(f) before step "
            "2");
  EXPECT_EQ(checkPatternOnSchedule(m, pat, {0, 2}, {2, 0, 2}),
            "event 2 (step 2) comes before step 1 in the schedule");
  EXPECT_EQ(checkPatternOnSchedule(m, pat, {0, 3}, {0, 3}),
            "event 3 does not match step 2 (use(f))");
  EXPECT_EQ(checkPatternOnSchedule(m, pat, {0, 2}, {0, 2, 3}),
            "the schedule does not end with event 2");
}

TEST(PropertyCandidates, EventForbiddenByConsecutiveGapsIsPruned) {
  // Two regions of t1, each with one read of x; t0 writes x. R-W-R pairs
  // the reads of different regions only through two gaps (read..write,
  // write..read) that both forbid the region's end (3), which program
  // order puts between the reads: pruned without a solver call.
  trace::Trace t = parseTrace("t0 fork t1\n"  // 0
                              "t1 ev b\n"     // 1
                              "t1 rd x 0\n"   // 2
                              "t1 ev e\n"     // 3
                              "t1 ev b\n"     // 4
                              "t1 rd x 0\n"   // 5
                              "t1 ev e\n"     // 6
                              "t0 wr x 1\n"); // 7
  analysis::TraceIndex idx(t);
  analysis::MustHappenBefore mhb(idx);
  TraceMatcher m(t);
  Property p = parseOne("property q:\n    atomic b .. e\n");
  CandidateStats st;
  EXPECT_TRUE(findCandidates(idx, mhb, m, p, {}, &st).empty());
  // (1, 2, 7, 5) of R-W-R is the one tuple that reaches the end; the
  // others stop earlier (a region end certainly inside one gap).
  EXPECT_EQ(st.tuples, 1u);
  EXPECT_GE(st.prunedGap, 1u);
  // Without the filters it stays, with both region ends (3, 6) as gap
  // events of both gaps.
  CandidateOptions nf;
  nf.filters = false;
  auto all = findCandidates(idx, mhb, m, p, nf, &st);
  auto it = std::find_if(all.begin(), all.end(), [](const Candidate &c) {
    return c.events == std::vector<EventId>{1, 2, 7, 5};
  });
  ASSERT_NE(it, all.end());
  EXPECT_EQ(it->gapEvents[2], (std::vector<EventId>{3, 6}));
  EXPECT_EQ(it->gapEvents[3], (std::vector<EventId>{3, 6}));
}
