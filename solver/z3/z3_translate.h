//===- solver/z3/z3_translate.h - FormulaPool → z3::expr (private) -------===//
//
// Shared by the two Z3 backends. Order variables become Int constants `o<i>`
// and Boolean variables Bool constants `b<i>`, both created on first use;
// translated nodes are cached per pool node (a pool is append-only).
//
#pragma once

#include "racepredict/solver/formula.h"

#include <z3++.h>

#include <string>
#include <unordered_map>
#include <vector>

namespace racepredict::solver::z3backend {

class Translator {
public:
  explicit Translator(z3::context &ctx) : ctx_(ctx) {}
  void clear() {
    cache_.clear();
    order_.clear();
    bools_.clear();
    rank_.clear();
    negated_.clear();
  }
  /// docs/slicing.md, "The observed order as the solver's first guess".
  void hintObservedOrder(std::vector<uint64_t> rank,
                         const std::vector<BoolVar> &trueBools) {
    rank_ = std::move(rank);
    for (BoolVar v : trueBools) {
      if (negated_.size() <= v)
        negated_.resize(v + 1, 0);
      negated_[v] = 1;
    }
  }
  z3::expr order(OrderVar v) {
    while (order_.size() <= v)
      order_.push_back(
          ctx_.int_const(("o" + std::to_string(order_.size())).c_str()));
    return order_[v];
  }
  z3::expr boolean(BoolVar v) {
    while (bools_.size() <= v) {
      size_t i = bools_.size();
      z3::expr b = ctx_.bool_const(("b" + std::to_string(i)).c_str());
      // A Boolean that held in the run: the negation of a fresh one, whose
      // first phase (false) makes it true, as observed (see FOp::Lt).
      bools_.push_back(i < negated_.size() && negated_[i] ? !b : b);
    }
    return bools_[v];
  }
  size_t numOrder() const { return order_.size(); }
  size_t numBools() const { return bools_.size(); }

  z3::expr operator()(const FormulaPool &pool, F f) {
    auto it = cache_.find(f);
    if (it != cache_.end())
      return it->second;
    const FNode &n = pool.node(f);
    z3::expr e(ctx_);
    auto kids = [&]() {
      z3::expr_vector v(ctx_);
      for (const F *k = pool.kidsBegin(f); k != pool.kidsEnd(f); ++k)
        v.push_back((*this)(pool, *k));
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
      // Z3 makes `x < y` the negation of an atom `x >= y`, and an atom's
      // first phase is false: the search first tries x < y. Where the run
      // had y first, the same constraint as the atom `x - y <= -1` (equal
      // over the integers) is first tried false, as observed. So the
      // search starts from the observed run and changes only what the
      // pair needs (mixed 10K: 300-2,300 conflicts per query -> 0-9).
      if (n.a < rank_.size() && n.b < rank_.size() && rank_[n.a] > rank_[n.b])
        e = order(n.a) - order(n.b) <= ctx_.int_val(-1);
      else
        e = order(n.a) < order(n.b);
      break;
    case FOp::Le:
      e = order(n.a) <= order(n.b);
      break;
    case FOp::Bool:
      e = boolean(n.a);
      break;
    case FOp::Not:
      e = !(*this)(pool, *pool.kidsBegin(f));
      break;
    case FOp::And:
      e = z3::mk_and(kids());
      break;
    case FOp::Or:
      e = z3::mk_or(kids());
      break;
    case FOp::Implies:
      e = z3::implies((*this)(pool, pool.kidsBegin(f)[0]),
                      (*this)(pool, pool.kidsBegin(f)[1]));
      break;
    case FOp::PbGe: {
      z3::expr sum = ctx_.int_val(0);
      const F *k = pool.kidsBegin(f);
      for (uint32_t i = 0; k + i != pool.kidsEnd(f); ++i) {
        int64_t c = pool.coeffs()[n.kidsBegin + i];
        sum = sum +
              z3::ite((*this)(pool, k[i]), ctx_.int_val(c), ctx_.int_val(0));
      }
      e = sum >= ctx_.int_val(n.k);
      break;
    }
    }
    cache_.emplace(f, e);
    return e;
  }

private:
  z3::context &ctx_;
  std::unordered_map<F, z3::expr> cache_;
  std::vector<z3::expr> order_, bools_;
  std::vector<uint64_t> rank_;
  std::vector<char> negated_;
};

/// Sets the per-check budget (PLATFORM_NOTES: timeout in ms, rlimit).
inline void setLimits(z3::context &ctx, z3::solver &s, unsigned timeoutMs,
                      uint64_t rlimit, bool differenceLogic) {
  z3::params p(ctx);
  p.set("timeout", timeoutMs ? timeoutMs : 4294967295u);
  p.set("rlimit", static_cast<unsigned>(
                      rlimit ? std::min<uint64_t>(rlimit, 4294967295u) : 0u));
  if (differenceLogic) {
    p.set("arith.solver", 1u);
    // No relevancy filtering: on ordering queries every atom is relevant
    // anyway, and tracking it dominated the large `mixed` 10K slices (6,309
    // order variables, 28K assertions: a sat query 60 s -> 7 s, another 19 s
    // -> 9 s, 40 s time-out -> 25 s; the 50 queries of `mixed` 800 the same
    // or faster). It changes the search order only, never an answer.
    p.set("relevancy", 0u);
  }
  s.set(p);
}

/// Z3's reason for `unknown`, normalised to "timeout" / "rlimit".
inline std::string unknownReason(z3::solver &s) {
  std::string r = s.reason_unknown();
  if (r == "canceled")
    return "timeout";
  if (r.find("resource") != std::string::npos ||
      r.find("rlimit") != std::string::npos)
    return "rlimit";
  return r;
}

} // namespace racepredict::solver::z3backend
