//===- solver/z3/z3_query_solver.cpp - Z3 backend for sliced queries ------===//
//
// One z3::context per instance (one per worker: contexts are not
// thread-safe); a fresh `simple` solver per query, with the
// difference-logic arithmetic solver when the query is pure IDL
// (PLATFORM_NOTES). Assumption literals + unsat cores drive the slice
// expansion of solver/encode/pair_solver.cpp.
//
#include "racepredict/solver/order_solver.h"

#include "z3_translate.h"

#include <atomic>
#include <fstream>

namespace racepredict::solver {
namespace {

class Z3QuerySolver final : public QuerySolver {
public:
  explicit Z3QuerySolver(std::string dumpDir)
      : dumpDir_(std::move(dumpDir)), solver_(ctx_, z3::solver::simple()),
        translate_(ctx_), model_(ctx_) {}

  void reset(bool differenceLogicOnly) override {
    dl_ = differenceLogicOnly;
    solver_ = z3::solver(ctx_, z3::solver::simple());
    translate_.clear();
    model_ = z3::model(ctx_);
    error_.clear();
  }

  void add(const FormulaPool &pool, F f) override {
    if (!error_.empty())
      return;
    try {
      solver_.add(translate_(pool, f));
    } catch (const z3::exception &e) {
      error_ = e.msg();
    }
  }

  CheckResult check(const FormulaPool &pool, const std::vector<F> &assumptions,
                    uint32_t numOrderVars, const CheckLimits &limits) override {
    CheckResult r;
    if (!error_.empty()) {
      r.reason = "solver error: " + error_;
      return r;
    }
    try {
      z3backend::setLimits(ctx_, solver_, limits.timeoutMs, limits.rlimit, dl_);
      z3::expr_vector as(ctx_);
      for (F a : assumptions)
        as.push_back(translate_(pool, a));
      dump(as);
      z3::check_result res = solver_.check(as);
      if (res == z3::sat) {
        r.status = CheckResult::Sat;
        model_ = solver_.get_model();
        r.order.resize(numOrderVars);
        for (uint32_t i = 0; i < numOrderVars; ++i)
          r.order[i] =
              model_.eval(translate_.order(i), true).get_numeral_int64();
      } else if (res == z3::unsat) {
        r.status = CheckResult::Unsat;
        z3::expr_vector core = solver_.unsat_core();
        for (unsigned i = 0; i < core.size(); ++i)
          for (uint32_t k = 0; k < as.size(); ++k)
            if (z3::eq(core[i], as[k])) {
              r.core.push_back(k);
              break;
            }
      } else {
        r.reason = z3backend::unknownReason(solver_);
      }
    } catch (const z3::exception &e) {
      r = CheckResult{};
      r.reason = std::string("solver error: ") + e.msg();
    }
    return r;
  }

  void hintObservedOrder(std::vector<uint64_t> rank,
                         const std::vector<BoolVar> &trueBools) override {
    translate_.hintObservedOrder(std::move(rank), trueBools);
  }

  bool boolValue(BoolVar v) override {
    try {
      return model_.eval(translate_.boolean(v), true).is_true();
    } catch (const z3::exception &) {
      return false;
    }
  }

private:
  void dump(const z3::expr_vector &as) {
    if (dumpDir_.empty())
      return;
    static std::atomic<unsigned> counter{0};
    std::ofstream out(dumpDir_ + "/query-" + std::to_string(counter++) +
                      ".smt2");
    out << solver_.to_smt2();
    out << "; assumptions:";
    for (unsigned i = 0; i < as.size(); ++i)
      out << " " << as[i];
    out << "\n";
  }

  std::string dumpDir_;
  z3::context ctx_;
  z3::solver solver_;
  z3backend::Translator translate_;
  z3::model model_;
  bool dl_ = true;
  std::string error_;
};

} // namespace

std::unique_ptr<QuerySolver> makeZ3QuerySolver(const std::string &dumpDir) {
  return std::make_unique<Z3QuerySolver>(dumpDir);
}

} // namespace racepredict::solver
