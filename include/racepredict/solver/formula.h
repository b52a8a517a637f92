//===- solver/formula.h - Solver-neutral formulas over order variables ----===//
//
// The encodings build these; a backend (solver/z3/) translates them. Atoms
// are difference constraints `O_x < O_y` / `O_x <= O_y` over integer order
// variables, Boolean variables, and (only for semaphores) pseudo-Boolean
// sums. Nodes are hash-consed in a FormulaPool so shared sub-formulas are
// translated once. The pool hashes a node's integer fields (operator,
// operands, kid handles, coefficients) into an open-addressing table of
// handles and compares candidates against the stored nodes: no key is
// built and nothing is allocated per node beyond the pool's own arrays
// (a slice of most of a real trace makes millions of nodes; issue 17).
//
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace racepredict::solver {

using OrderVar = uint32_t; ///< an integer order variable
using BoolVar = uint32_t;  ///< a Boolean variable
using F = uint32_t;        ///< handle of a formula node in its pool

enum class FOp : uint8_t {
  True,
  False,
  Lt,      ///< O_a < O_b
  Le,      ///< O_a <= O_b
  Bool,    ///< Boolean variable a
  Not,     ///< kids[0]
  And,     ///< all kids
  Or,      ///< any kid
  Implies, ///< kids[0] -> kids[1]
  PbGe,    ///< sum(coeff_i * [kid_i]) >= k
};

struct FNode {
  FOp op;
  uint32_t a = 0, b = 0;
  int64_t k = 0;
  uint32_t kidsBegin = 0, kidsEnd = 0; ///< into FormulaPool::kids
};

/// Category labels (CBMC style) for statistics and explanations.
enum class Label : uint8_t {
  Po,
  Fork,
  Join,
  Notify,
  Barrier,
  Lock,
  Sem,
  Cf,
  Rf,
  Race,
  Channel
};
const char *labelName(Label l);

class FormulaPool {
public:
  FormulaPool();
  F top() const { return 0; }
  F bottom() const { return 1; }
  F lt(OrderVar a, OrderVar b) { return leaf(FOp::Lt, a, b); }
  F le(OrderVar a, OrderVar b) { return leaf(FOp::Le, a, b); }
  F eq(OrderVar a, OrderVar b) { return mkAnd({le(a, b), le(b, a)}); }
  F boolVar(BoolVar v) { return leaf(FOp::Bool, v, 0); }
  F mkNot(F f);
  F mkAnd(const std::vector<F> &kids) { return junction(FOp::And, kids); }
  F mkAnd(std::initializer_list<F> kids) {
    return junction(FOp::And, {kids.begin(), kids.end()});
  }
  F mkOr(const std::vector<F> &kids) { return junction(FOp::Or, kids); }
  F mkOr(std::initializer_list<F> kids) {
    return junction(FOp::Or, {kids.begin(), kids.end()});
  }
  F implies(F a, F b);
  /// sum(coeffs[i] * [kids[i]]) >= k.
  F pbGe(const std::vector<F> &kids, const std::vector<int64_t> &coeffs,
         int64_t k);
  /// At most k of `kids` hold, as clauses over fresh Booleans (Sinz's
  /// sequential counter: O(n·k) clauses, no arithmetic).
  F atMost(const std::vector<F> &kids, int64_t k);

  const FNode &node(F f) const { return nodes_[f]; }
  const F *kidsBegin(F f) const { return kids_.data() + nodes_[f].kidsBegin; }
  const F *kidsEnd(F f) const { return kids_.data() + nodes_[f].kidsEnd; }
  const std::vector<int64_t> &coeffs() const { return coeffs_; }
  size_t size() const { return nodes_.size(); }

  BoolVar newBoolVar() { return numBoolVars_++; }
  uint32_t numBoolVars() const { return numBoolVars_; }
  /// True if some node is a pseudo-Boolean sum (not difference logic).
  bool hasPb() const { return hasPb_; }

  /// SMT-LIB2 rendering (for --dump-smt2).
  std::string toSmt2(F f) const;

private:
  /// A run of kid handles (of a vector, a list or an array).
  struct Kids {
    const F *begin = nullptr, *end = nullptr;
    Kids() = default;
    Kids(const F *b, const F *e) : begin(b), end(e) {}
    Kids(const std::vector<F> &v) : begin(v.data()), end(v.data() + v.size()) {}
    size_t size() const { return static_cast<size_t>(end - begin); }
  };
  F leaf(FOp op, uint32_t a, uint32_t b);
  /// And/Or of `kids` without the neutral ones; the absorbing one wins.
  F junction(FOp op, Kids kids);
  /// The handle of the node (n, kids, coeffs), made if new. `coeffs` is
  /// null except for PbGe (one per kid).
  F intern(FNode n, Kids kids, const int64_t *coeffs = nullptr);
  static uint64_t hashOf(const FNode &n, Kids kids, const int64_t *coeffs);
  bool sameNode(F f, const FNode &n, Kids kids, const int64_t *coeffs) const;
  void growTable();
  std::vector<FNode> nodes_;
  std::vector<F> kids_;
  std::vector<int64_t> coeffs_; ///< parallel to kids_ (0 unless PbGe)
  /// Open addressing, linear probing: a power-of-two number of slots,
  /// each a node handle or kEmpty, at most half full.
  std::vector<F> table_;
  std::vector<uint32_t> hashes_; ///< per node: its hash (for regrowing)
  std::vector<F> scratch_;       ///< the kids junction() keeps
  uint32_t numBoolVars_ = 0;
  bool hasPb_ = false;
};

} // namespace racepredict::solver
