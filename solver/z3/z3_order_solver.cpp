//===- solver/z3/z3_order_solver.cpp - Z3 backend (only user of z3++.h) ---===//
//
// One z3::context per instance (contexts are not thread-safe, so each
// worker owns one). Solver: `simple` tactic-free solver with
// arith.solver = 1 (difference logic) when the formulas are pure IDL —
// PLATFORM_NOTES measured it ~10x faster than the QF_IDL logic setting.
// Queries use push/pop over the permanent base (incremental solving).
//
#include "racepredict/solver/order_solver.h"

#include <z3++.h>

#include <atomic>
#include <fstream>
#include <sstream>
#include <unordered_map>

namespace racepredict::solver {
namespace {

class Z3OrderSolver final : public OrderSolver {
public:
  explicit Z3OrderSolver(const SolverConfig &cfg)
      : cfg_(cfg), solver_(ctx_, z3::solver::simple()) {
    z3::params p(ctx_);
    if (cfg.differenceLogicOnly)
      p.set("arith.solver", 1u);
    solver_.set(p);
    order_.reserve(cfg.numOrderVars);
    for (uint32_t i = 0; i < cfg.numOrderVars; ++i)
      order_.push_back(ctx_.int_const(("o" + std::to_string(i)).c_str()));
  }

  void addBase(const FormulaPool &pool, F f, Label label) override {
    try {
      solver_.add(translate(pool, f));
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
      z3::params p(ctx_);
      p.set("timeout", limits.timeoutMs ? limits.timeoutMs : 4294967295u);
      p.set("rlimit",
            static_cast<unsigned>(
                limits.rlimit ? std::min<uint64_t>(limits.rlimit, 4294967295u)
                              : 0u));
      if (cfg_.differenceLogicOnly)
        p.set("arith.solver", 1u);
      solver_.set(p);
      solver_.push();
      z3::expr q = translate(pool, query);
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
        r.reason = solver_.reason_unknown();
        if (r.reason == "canceled")
          r.reason = "timeout";
        if (r.reason.find("resource") != std::string::npos ||
            r.reason.find("rlimit") != std::string::npos)
          r.reason = "rlimit";
      }
      solver_.pop();
    } catch (const z3::exception &e) {
      r = CheckResult{};
      r.reason = std::string("solver error: ") + e.msg();
    }
    return r;
  }

private:
  z3::expr translate(const FormulaPool &pool, F f) {
    auto it = cache_.find(f);
    if (it != cache_.end())
      return it->second;
    const FNode &n = pool.node(f);
    z3::expr e(ctx_);
    auto kids = [&]() {
      z3::expr_vector v(ctx_);
      for (const F *k = pool.kidsBegin(f); k != pool.kidsEnd(f); ++k)
        v.push_back(translate(pool, *k));
      return v;
    };
    switch (n.op) {
    case FOp::True:
      e = ctx_.bool_val(true);
      break;
    case FOp::False:
      e = ctx_.bool_val(false);
      break;
    case FOp::Lt:
      e = order_[n.a] < order_[n.b];
      break;
    case FOp::Le:
      e = order_[n.a] <= order_[n.b];
      break;
    case FOp::Bool:
      e = ctx_.bool_const(("b" + std::to_string(n.a)).c_str());
      break;
    case FOp::Not:
      e = !translate(pool, *pool.kidsBegin(f));
      break;
    case FOp::And:
      e = z3::mk_and(kids());
      break;
    case FOp::Or:
      e = z3::mk_or(kids());
      break;
    case FOp::Implies:
      e = z3::implies(translate(pool, pool.kidsBegin(f)[0]),
                      translate(pool, pool.kidsBegin(f)[1]));
      break;
    case FOp::PbGe: {
      z3::expr sum = ctx_.int_val(0);
      const F *k = pool.kidsBegin(f);
      for (uint32_t i = 0; k + i != pool.kidsEnd(f); ++i) {
        int64_t c = pool.coeffs()[n.kidsBegin + i];
        sum = sum +
              z3::ite(translate(pool, k[i]), ctx_.int_val(c), ctx_.int_val(0));
      }
      e = sum >= ctx_.int_val(n.k);
      break;
    }
    }
    cache_.emplace(f, e);
    return e;
  }

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
  std::vector<z3::expr> order_;
  std::unordered_map<F, z3::expr> cache_;
  std::ostringstream baseText_;
  std::string baseError_;
};

} // namespace

std::unique_ptr<OrderSolver> makeZ3OrderSolver(const SolverConfig &cfg) {
  return std::make_unique<Z3OrderSolver>(cfg);
}

} // namespace racepredict::solver
