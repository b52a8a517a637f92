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

} // namespace racepredict::solver
