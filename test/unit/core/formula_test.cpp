//===- formula_test.cpp - Formula pool simplification and the Z3 backend --===//
#include "racepredict/solver/formula.h"
#include "racepredict/solver/order_solver.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

using namespace racepredict::solver;

TEST(FormulaPool, SimplifiesAndHashConses) {
  FormulaPool p;
  F a = p.lt(0, 1);
  EXPECT_EQ(a, p.lt(0, 1));
  EXPECT_NE(a, p.lt(1, 0));
  EXPECT_EQ(p.mkAnd({a, p.top()}), a);
  EXPECT_EQ(p.mkAnd({a, p.bottom()}), p.bottom());
  EXPECT_EQ(p.mkOr({a, p.top()}), p.top());
  EXPECT_EQ(p.mkOr({}), p.bottom());
  EXPECT_EQ(p.mkNot(p.mkNot(a)), a);
  EXPECT_EQ(p.implies(p.top(), a), a);
  EXPECT_EQ(p.toSmt2(p.mkAnd({a, p.le(2, 1)})), "(and (< o0 o1) (<= o2 o1))");
  EXPECT_FALSE(p.hasPb());
  F pb = p.pbGe({a, p.lt(1, 2)}, {1, -1}, 0);
  EXPECT_TRUE(p.hasPb());
  EXPECT_EQ(p.toSmt2(pb),
            "(>= (+ 0 (ite (< o0 o1) 1 0) (ite (< o1 o2) -1 0)) 0)");
}

// The pool hashes integer fields into a table of handles: a node made
// again (also after the table grew) is the same handle, and nodes that
// differ only in their kind, operand order, kid order or coefficients are
// different ones.
TEST(FormulaPool, HashConsingIsIdentityAndKindsNeverCollide) {
  FormulaPool p;
  F lt = p.lt(3, 4), le = p.le(3, 4), b = p.boolVar(3);
  EXPECT_NE(lt, le);
  EXPECT_NE(lt, b);
  EXPECT_NE(le, b);
  EXPECT_NE(p.boolVar(3), p.boolVar(4));
  EXPECT_NE(p.lt(4, 3), lt);
  F x = p.boolVar(10), y = p.boolVar(11);
  F conj = p.mkAnd({x, y}), disj = p.mkOr({x, y});
  EXPECT_NE(conj, disj);
  EXPECT_NE(conj, p.mkAnd({y, x})); // no reordering: structural identity
  EXPECT_EQ(conj, p.mkAnd(std::vector<F>{x, y}));
  EXPECT_EQ(conj, p.mkAnd({x, p.top(), y})); // the neutral kid is dropped
  EXPECT_NE(p.implies(x, y), p.implies(y, x));
  EXPECT_NE(p.implies(x, y), p.mkOr({p.mkNot(x), y}));
  EXPECT_NE(p.mkNot(x), x);
  EXPECT_EQ(p.mkNot(x), p.mkNot(x));
  F pb1 = p.pbGe({x, y}, {1, 2}, 1), pb2 = p.pbGe({x, y}, {2, 1}, 1);
  EXPECT_NE(pb1, pb2);
  EXPECT_NE(pb1, p.pbGe({x, y}, {1, 2}, 2));
  EXPECT_EQ(pb1, p.pbGe({x, y}, {1, 2}, 1));
  EXPECT_EQ(p.toSmt2(pb2), "(>= (+ 0 (ite b10 2 0) (ite b11 1 0)) 1)");

  // Enough nodes to regrow the table many times; every one made again is
  // found, and their number is exactly the distinct ones.
  std::vector<F> made;
  for (uint32_t i = 0; i < 20000; ++i)
    made.push_back(p.mkOr({p.lt(i, i + 1), p.le(i + 1, i), p.boolVar(i)}));
  size_t size = p.size();
  for (uint32_t i = 0; i < 20000; ++i)
    EXPECT_EQ(made[i], p.mkOr({p.lt(i, i + 1), p.le(i + 1, i), p.boolVar(i)}));
  EXPECT_EQ(p.size(), size);
  std::sort(made.begin(), made.end());
  EXPECT_EQ(std::unique(made.begin(), made.end()), made.end());
  // The kids of a node read back as they were given.
  const F *k = p.kidsBegin(made[0]);
  EXPECT_EQ(p.kidsEnd(made[0]) - k, 3);
  EXPECT_EQ(p.node(k[0]).op, FOp::Lt);
  EXPECT_EQ(p.node(k[1]).op, FOp::Le);
  EXPECT_EQ(p.node(k[2]).op, FOp::Bool);
}

TEST(Z3OrderSolver, SatUnsatAndModelsRespectTheBase) {
  FormulaPool p;
  SolverConfig cfg;
  cfg.numOrderVars = 3;
  auto s = makeZ3OrderSolver(cfg);
  s->addBase(p, p.mkAnd({p.lt(0, 1), p.lt(1, 2)}), Label::Po);
  CheckResult r = s->check(p, p.top(), {});
  ASSERT_EQ(r.status, CheckResult::Sat);
  EXPECT_LT(r.order[0], r.order[1]);
  EXPECT_LT(r.order[1], r.order[2]);
  // The query is popped afterwards: the base alone stays satisfiable.
  EXPECT_EQ(s->check(p, p.lt(2, 0), {}).status, CheckResult::Unsat);
  EXPECT_EQ(s->check(p, p.eq(0, 1), {}).status, CheckResult::Unsat);
  EXPECT_EQ(s->check(p, p.top(), {}).status, CheckResult::Sat);
}

TEST(Z3OrderSolver, PseudoBooleanNeedsGeneralArithmetic) {
  FormulaPool p;
  F pb = p.pbGe({p.lt(0, 2), p.lt(1, 2)}, {1, 1}, 2);
  SolverConfig cfg;
  cfg.numOrderVars = 3;
  cfg.differenceLogicOnly = !p.hasPb();
  auto s = makeZ3OrderSolver(cfg);
  s->addBase(p, pb, Label::Sem);
  CheckResult r = s->check(p, p.lt(2, 1), {});
  EXPECT_EQ(r.status, CheckResult::Unsat);
  r = s->check(p, p.top(), {});
  ASSERT_EQ(r.status, CheckResult::Sat);
  EXPECT_LT(r.order[0], r.order[2]);
  EXPECT_LT(r.order[1], r.order[2]);
}

TEST(Z3OrderSolver, ExhaustedBudgetIsUnknownNotUnsat) {
  // A pigeonhole-style ordering problem that needs search; a tiny rlimit
  // must end as Unknown, never as Unsat.
  FormulaPool p;
  const uint32_t n = 40;
  std::vector<F> cs;
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t j = i + 1; j < n; ++j)
      cs.push_back(p.mkOr({p.lt(i, j), p.lt(j, i)}));
  SolverConfig cfg;
  cfg.numOrderVars = n;
  auto s = makeZ3OrderSolver(cfg);
  s->addBase(p, p.mkAnd(cs), Label::Lock);
  CheckLimits lim;
  lim.rlimit = 1;
  CheckResult r = s->check(p, p.top(), lim);
  EXPECT_EQ(r.status, CheckResult::Unknown);
  EXPECT_FALSE(r.reason.empty());
}

// The observed order is the sliced solver's first guess, never a
// constraint (docs/slicing.md): an order it does not fit is still found,
// strictness is kept (x < y where the run had y first is not x <= y), and
// where the formula leaves the order open the model is the observed one;
// the same for the Booleans that held in the run.
TEST(Z3QuerySolver, ObservedOrderIsTheFirstGuessNeverAConstraint) {
  FormulaPool p;
  auto s = makeZ3QuerySolver("");
  auto check = [&](std::vector<uint64_t> rank, std::vector<F> fs,
                   std::vector<BoolVar> trueBools = {}) {
    s->reset(true);
    s->hintObservedOrder(std::move(rank), trueBools);
    for (F f : fs)
      s->add(p, f);
    return s->check(p, {}, 4, {});
  };
  // The run had o1 before o0; the formula wants o0 first.
  CheckResult r = check({5, 2}, {p.lt(0, 1)});
  ASSERT_EQ(r.status, CheckResult::Sat);
  EXPECT_LT(r.order[0], r.order[1]);
  EXPECT_EQ(check({5, 2}, {p.lt(0, 1), p.le(1, 0)}).status, CheckResult::Unsat);
  EXPECT_EQ(check({5, 2}, {p.lt(0, 1), p.eq(0, 1)}).status, CheckResult::Unsat);
  // Every pair ordered, either way: the model is the observed order.
  std::vector<F> total;
  for (OrderVar i = 0; i < 4; ++i)
    for (OrderVar j = i + 1; j < 4; ++j)
      total.push_back(p.mkOr({p.lt(i, j), p.lt(j, i)}));
  for (std::vector<uint64_t> rank :
       {std::vector<uint64_t>{3, 1, 0, 2}, {0, 1, 2, 3}, {3, 2, 1, 0}}) {
    r = check(rank, total);
    ASSERT_EQ(r.status, CheckResult::Sat);
    for (OrderVar i = 0; i < 4; ++i)
      for (OrderVar j = 0; j < 4; ++j) {
        if (rank[i] < rank[j]) {
          EXPECT_LT(r.order[i], r.order[j]) << i << " before " << j;
        }
      }
  }
  // Booleans true in the run are first guessed true, and still false
  // where the formula says so.
  F b0 = p.boolVar(0), b1 = p.boolVar(1);
  F either = p.mkOr({b0, b1});
  for (BoolVar observed : {0u, 1u}) {
    ASSERT_EQ(check({}, {either}, {observed}).status, CheckResult::Sat);
    EXPECT_TRUE(s->boolValue(observed));
    EXPECT_FALSE(s->boolValue(1 - observed));
  }
  ASSERT_EQ(check({}, {either, p.mkNot(b0)}, {0}).status, CheckResult::Sat);
  EXPECT_FALSE(s->boolValue(0));
  EXPECT_TRUE(s->boolValue(1));
  EXPECT_EQ(check({}, {p.mkNot(b0), p.mkNot(b1), either}, {0, 1}).status,
            CheckResult::Unsat);
}
