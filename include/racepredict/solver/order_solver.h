//===- solver/order_solver.h - Narrow backend interface -------------------===//
//
// Domain operations only (CONVENTIONS B.3): permanent base constraints and
// per-query checks. A model is returned as plain order values, never as a
// backend object, so no backend type leaks out of solver/z3/.
//
#pragma once

#include "racepredict/solver/formula.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace racepredict::solver {

struct CheckLimits {
  unsigned timeoutMs = 0; ///< 0 = none
  uint64_t rlimit = 0;    ///< 0 = none
};

struct CheckResult {
  enum Status { Sat, Unsat, Unknown } status = Unknown;
  /// For Sat: the value of every order variable 0..numOrderVars-1.
  std::vector<int64_t> order;
  std::string reason; ///< for Unknown: "timeout", "rlimit", backend message
  /// QuerySolver, for Unsat: indices into the assumptions of an unsat core.
  std::vector<uint32_t> core;
};

class OrderSolver {
public:
  virtual ~OrderSolver() = default;
  /// Asserts `f` (from `pool`) permanently.
  virtual void addBase(const FormulaPool &pool, F f, Label label) = 0;
  /// Checks base ∧ query, leaving the base unchanged.
  virtual CheckResult check(const FormulaPool &pool, F query,
                            const CheckLimits &limits) = 0;
};

struct SolverConfig {
  uint32_t numOrderVars = 0;
  /// The formulas use only difference logic: lets Z3 use its much faster
  /// difference-logic solver (PLATFORM_NOTES: 8 ms vs 109-166 ms per query).
  bool differenceLogicOnly = true;
  std::string dumpSmt2Dir; ///< non-empty: write each query as .smt2
};

std::unique_ptr<OrderSolver> makeZ3OrderSolver(const SolverConfig &cfg);

/// One query at a time, built up incrementally (issue 7: per-candidate
/// slices): constraints are added, checked under assumption literals,
/// refined and checked again; reset() starts the next query. One instance
/// owns one backend context, so a worker owns one instance; a fixed
/// sequence of operations gives the same models on every run.
class QuerySolver {
public:
  virtual ~QuerySolver() = default;
  /// Drops every constraint; `differenceLogicOnly` as in SolverConfig.
  virtual void reset(bool differenceLogicOnly) = 0;
  /// Asserts `f` (order and Boolean variables are created on first use).
  virtual void add(const FormulaPool &pool, F f) = 0;
  /// Checks the constraints under `assumptions` (Boolean variables or their
  /// negations). Sat: `order` holds the values of order variables
  /// 0..numOrderVars-1. Unsat: `core` names assumptions that suffice.
  virtual CheckResult check(const FormulaPool &pool,
                            const std::vector<F> &assumptions,
                            uint32_t numOrderVars,
                            const CheckLimits &limits) = 0;
  /// `rank[v]`: where order variable v's node is in the observed run (the
  /// cut: last); `trueBools`: the Boolean variables that held in it. A
  /// hint for the search only — it never changes a verdict; a backend may
  /// ignore it (docs/slicing.md, "The observed order as the solver's first
  /// guess").
  virtual void hintObservedOrder(std::vector<uint64_t> /*rank*/,
                                 const std::vector<BoolVar> & /*trueBools*/) {}
  /// After Sat: the value of a Boolean variable (false if unconstrained).
  virtual bool boolValue(BoolVar v) = 0;
};

/// `dumpSmt2Dir` non-empty: every check is also written there as .smt2.
std::unique_ptr<QuerySolver> makeZ3QuerySolver(const std::string &dumpSmt2Dir);

} // namespace racepredict::solver
