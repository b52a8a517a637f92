//===- formula_test.cpp - Formula pool simplification and the Z3 backend --===//
#include "racepredict/solver/formula.h"
#include "racepredict/solver/order_solver.h"

#include <gtest/gtest.h>

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
