//===- solver/z3/z3_order_solver.cpp - Z3 backend (only user of z3++.h) ---===//
//
// One z3::context per instance (contexts are not thread-safe, so each
// worker owns one). Solver: `simple` tactic-free solver with
// arith.solver = 1 (difference logic) when the formulas are pure IDL —
// PLATFORM_NOTES measured it ~10x faster than the QF_IDL logic setting.
// Queries use push/pop over the permanent base (incremental solving).
//
#include "racepredict/solver/order_solver.h"

#include "z3_translate.h"

#include <atomic>
#include <fstream>
#include <sstream>
#include <unordered_map>

namespace racepredict::solver {
namespace {

class Z3OrderSolver final : public OrderSolver {
public:
  explicit Z3OrderSolver(const SolverConfig &cfg)
      : cfg_(cfg), solver_(ctx_, z3::solver::simple()), translate_(ctx_) {
    z3::params p(ctx_);
    if (cfg.differenceLogicOnly)
      p.set("arith.solver", 1u);
    solver_.set(p);
    order_.reserve(cfg.numOrderVars);
    for (uint32_t i = 0; i < cfg.numOrderVars; ++i)
      order_.push_back(translate_.order(i));
  }

  void addBase(const FormulaPool &pool, F f, Label label) override {
    try {
      solver_.add(translate_(pool, f));
      if (!cfg_.dumpSmt2Dir.empty())
        baseText_ << "; " << labelName(label) << "\n(assert " << pool.toSmt2(f)
                  << ")\n";
    } catch (const z3::exception &e) {
      baseError_ = e.msg();
    }
  }

  CheckResult check(const FormulaPool &pool, F query,
                    const CheckLimits &limits) override {
    CheckResult r;
    if (!baseError_.empty()) {
      r.reason = "solver error: " + baseError_;
      return r;
    }
    try {
      z3backend::setLimits(ctx_, solver_, limits.timeoutMs, limits.rlimit,
                           cfg_.differenceLogicOnly);
      solver_.push();
      z3::expr q = translate_(pool, query);
      solver_.add(q);
      dump(pool, query);
      z3::check_result res = solver_.check();
      if (res == z3::sat) {
        r.status = CheckResult::Sat;
        z3::model m = solver_.get_model();
        r.order.resize(order_.size());
        for (size_t i = 0; i < order_.size(); ++i)
          r.order[i] = m.eval(order_[i], true).get_numeral_int64();
      } else if (res == z3::unsat) {
        r.status = CheckResult::Unsat;
      } else {
        r.reason = z3backend::unknownReason(solver_);
      }
      solver_.pop();
    } catch (const z3::exception &e) {
      r = CheckResult{};
      r.reason = std::string("solver error: ") + e.msg();
    }
    return r;
  }

private:
  void dump(const FormulaPool &pool, F query) {
    if (cfg_.dumpSmt2Dir.empty())
      return;
    static std::atomic<unsigned> counter{0};
    std::ofstream out(cfg_.dumpSmt2Dir + "/query-" + std::to_string(counter++) +
                      ".smt2");
    for (uint32_t i = 0; i < order_.size(); ++i)
      out << "(declare-const o" << i << " Int)\n";
    for (uint32_t i = 0; i < pool.numBoolVars(); ++i)
      out << "(declare-const b" << i << " Bool)\n";
    out << baseText_.str() << "; query\n(assert " << pool.toSmt2(query)
        << ")\n(check-sat)\n(get-model)\n";
  }

  SolverConfig cfg_;
  z3::context ctx_;
  z3::solver solver_;
  z3backend::Translator translate_;
  std::vector<z3::expr> order_;
  std::ostringstream baseText_;
  std::string baseError_;
};

} // namespace

std::unique_ptr<OrderSolver> makeZ3OrderSolver(const SolverConfig &cfg) {
  return std::make_unique<Z3OrderSolver>(cfg);
}

} // namespace racepredict::solver
