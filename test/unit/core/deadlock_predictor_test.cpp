//===- deadlock_predictor_test.cpp - Exact predicted deadlocks ------------===//
//
// Each trace is one shape of issue 6 / Carril 2017 §4.3 whose observed run
// did not deadlock; expected deadlocks (sets of blocked events) by hand from
// docs/semantics.md.
//
#include "racepredict/solver/deadlock_predictor.h"
#include "racepredict/trace/text_format.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>

using namespace racepredict;
using Cycles = std::set<std::set<uint32_t>>;

namespace {

Cycles deadlocks(const std::string &text, bool filters = true) {
  std::istringstream in(text);
  auto t = trace::parseTextTrace(in, "test.rpt.txt");
  EXPECT_TRUE(static_cast<bool>(t)) << (t ? "" : t.error().message);
  if (!t)
    return {};
  analysis::TraceIndex idx(*t);
  solver::DeadlockOptions o;
  o.allCycles = true;
  o.noFilters = !filters;
  solver::DeadlockResult r = solver::predictDeadlocks(idx, o);
  EXPECT_TRUE(r.unknowns.empty());
  Cycles out;
  for (const auto &d : r.deadlocks) {
    std::set<uint32_t> c;
    std::vector<analysis::EventId> evs;
    for (const auto &b : d.blocked) {
      c.insert(b.event);
      evs.push_back(b.event);
    }
    out.insert(c);
    // The witness is re-checked from its event list alone.
    auto steps = analysis::expandWitness(idx, d.witness);
    EXPECT_TRUE(steps.has_value());
    if (steps) {
      EXPECT_EQ(analysis::checkDeadlockWitness(idx, *steps, evs), std::nullopt);
    }
  }
  return out;
}

void expectDeadlocks(const std::string &text, const Cycles &expected) {
  EXPECT_EQ(deadlocks(text, true), expected);
  EXPECT_EQ(deadlocks(text, false), expected);
}

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
)";

} // namespace

TEST(DeadlockPredictor, OppositeLockOrderIsFound) {
  expectDeadlocks(kOpposite, {{3, 7}});
}

TEST(DeadlockPredictor, GateLockPreventsIt) {
  expectDeadlocks(R"(
t1 acq g
t1 acq a
t1 acq b
t1 rel b
t1 rel a
t1 rel g
t2 acq g
t2 acq b
t2 acq a
t2 rel a
t2 rel b
t2 rel g
)",
                  {});
}

TEST(DeadlockPredictor, BarrierSeparatesTheOrders) {
  // Carril Fig. 4.18: the opposite orders are on either side of a barrier.
  expectDeadlocks(R"(
t1 acq a
t1 acq b
t1 rel b
t1 rel a
t1 barrier bar 2
t2 barrier bar 2
t2 acq b
t2 acq a
t2 rel a
t2 rel b
)",
                  {});
}

TEST(DeadlockPredictor, ForkJoinOrdersTheSections) {
  expectDeadlocks(R"(
t1 acq a
t1 acq b
t1 rel b
t1 rel a
t1 fork t2
t2 acq b
t2 acq a
t2 rel a
t2 rel b
)",
                  {});
}

TEST(DeadlockPredictor, ConditionVariableOrdersTheSections) {
  expectDeadlocks(R"(
t2 acq c
t1 acq a
t1 acq b
t1 rel b
t1 rel a
t1 acq c
t1 signal cv
t1 rel c
t2 wait cv c
t2 rel c
t2 acq b
t2 acq a
t2 rel a
t2 rel b
)",
                  {});
}

TEST(DeadlockPredictor, BranchOnAFlagOrdersTheSections) {
  // t2 only nests after seeing the flag t1 sets after its own nesting.
  expectDeadlocks(R"(
t1 acq a
t1 acq b
t1 rel b
t1 rel a
t1 wr flag 1
t2 rd flag 1
t2 br
t2 acq b
t2 acq a
t2 rel a
t2 rel b
)",
                  {});
}

TEST(DeadlockPredictor, ThreePhilosophers) {
  expectDeadlocks(R"(
t1 acq f1
t1 acq f2
t1 rel f2
t1 rel f1
t2 acq f2
t2 acq f3
t2 rel f3
t2 rel f2
t3 acq f3
t3 acq f1
t3 rel f1
t3 rel f3
)",
                  {{1, 5, 9}});
}

TEST(DeadlockPredictor, ReadersDoNotBlockEachOther) {
  expectDeadlocks(R"(
t1 racq r
t1 acq m
t1 rel m
t1 rel r
t2 acq m
t2 racq r
t2 rel r
t2 rel m
)",
                  {});
  // A writer does.
  expectDeadlocks(R"(
t1 acq r
t1 acq m
t1 rel m
t1 rel r
t2 acq m
t2 racq r
t2 rel r
t2 rel m
)",
                  {{1, 5}});
}

namespace {

solver::DeadlockResult predict(const trace::Trace &t,
                               const analysis::TraceIndex &idx,
                               bool all = false, uint64_t rlimit = 0) {
  (void)t;
  solver::DeadlockOptions o;
  o.allCycles = all;
  o.rlimit = rlimit;
  return solver::predictDeadlocks(idx, o);
}

std::set<std::vector<uint32_t>> blockedSets(const solver::DeadlockResult &r) {
  std::set<std::vector<uint32_t>> out;
  for (const auto &d : r.deadlocks) {
    std::vector<uint32_t> s;
    for (const auto &b : d.blocked)
      s.push_back(b.event);
    out.insert(s);
  }
  return out;
}

trace::Trace parse(const std::string &text) {
  std::istringstream in(text);
  auto t = trace::parseTextTrace(in, "test.rpt.txt");
  EXPECT_TRUE(static_cast<bool>(t));
  return t ? std::move(*t) : trace::Trace();
}

} // namespace

TEST(DeadlockPredictor, DefaultReportKeepsTheLargestSetOfAGroup) {
  trace::Trace t = parse(std::string(kOpposite) + "t0 join t1\nt0 join t2\n");
  analysis::TraceIndex idx(t);
  auto all = predict(t, idx, true);
  EXPECT_EQ(blockedSets(all),
            (std::set<std::vector<uint32_t>>{{3, 7}, {3, 7, 10}}));
  auto def = predict(t, idx);
  ASSERT_EQ(def.deadlocks.size(), 1u);
  const auto &d = def.deadlocks[0];
  EXPECT_EQ(blockedSets(def), (std::set<std::vector<uint32_t>>{{3, 7, 10}}));
  EXPECT_EQ(d.kind, "lock-order");
  // The cycle is t1 → t2 (indices into `blocked`, sorted by event).
  EXPECT_EQ(d.cycle, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(d.blocked[2].kind, analysis::BlockKind::Join);
  // The witness runs t0's forks and both outer acquisitions, nothing more.
  EXPECT_EQ(std::set<uint32_t>(d.witness.begin(), d.witness.end()),
            (std::set<uint32_t>{0, 1, 2, 6}));
}

TEST(DeadlockPredictor, IndependentDeadlocksAreReportedApart) {
  trace::Trace t = parse(R"(
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
  analysis::TraceIndex idx(t);
  EXPECT_EQ(blockedSets(predict(t, idx)),
            (std::set<std::vector<uint32_t>>{{1, 5}, {9, 13}}));
  EXPECT_EQ(blockedSets(predict(t, idx, true)),
            (std::set<std::vector<uint32_t>>{{1, 5}, {1, 5, 9, 13}, {9, 13}}));
}

TEST(DeadlockPredictor, SemaphoreHandOffOfCarrilFig421) {
  trace::Trace t = parse(R"(
t0 seminit s 0
t0 fork t1
t0 post s
t1 semwait s
t1 post s
t0 semwait s
t0 join t1
)");
  analysis::TraceIndex idx(t);
  auto r = predict(t, idx);
  ASSERT_EQ(r.deadlocks.size(), 1u);
  EXPECT_EQ(r.deadlocks[0].kind, "semaphore");
  EXPECT_TRUE(r.deadlocks[0].cycle.empty());
  EXPECT_EQ(r.deadlocks[0].witness, (std::vector<uint32_t>{0, 1, 2, 5}));
  EXPECT_EQ(r.stats.candidates, 1u);
  EXPECT_EQ(r.stats.sat, 1u);
}

TEST(DeadlockPredictor, ABudgetTooSmallIsUnknownNotNoDeadlock) {
  trace::Trace t = parse(kOpposite);
  analysis::TraceIndex idx(t);
  auto r = predict(t, idx, true, 1);
  EXPECT_TRUE(r.deadlocks.empty());
  ASSERT_EQ(r.unknowns.size(), 1u);
  EXPECT_EQ(r.unknowns[0].first, (std::vector<uint32_t>{3, 7}));
  EXPECT_FALSE(r.unknowns[0].second.empty()); // the backend's reason
  EXPECT_EQ(r.stats.unknown, 1u);
}

TEST(DeadlockPredictor, CandidatesLeftAfterTheTraceBudgetAreUnknown) {
  // --budget-s bounds the deadlock route too: once spent (here before the
  // first candidate), each candidate left is listed undecided, unsolved.
  trace::Trace t = parse(kOpposite);
  analysis::TraceIndex idx(t);
  solver::DeadlockOptions o;
  o.allCycles = true;
  o.budgetSeconds = 1e-9;
  auto r = solver::predictDeadlocks(idx, o);
  EXPECT_TRUE(r.deadlocks.empty());
  ASSERT_EQ(r.unknowns.size(), 1u);
  EXPECT_EQ(r.unknowns[0].first, (std::vector<uint32_t>{3, 7}));
  EXPECT_EQ(r.unknowns[0].second, "trace budget exhausted");
  EXPECT_EQ(r.stats.sliceUnits, 0u); // nothing was solved
  o.budgetSeconds = 600;
  EXPECT_EQ(solver::predictDeadlocks(idx, o).deadlocks.size(), 1u);
}
