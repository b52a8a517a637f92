//===- solver/race_encoding.h - Φ_mhb ∧ Φ_lock ∧ Φ_sem ∧ Φ_cf ∧ race(a,b) -===//
//
// The maximal causal model of docs/semantics.md (Huang et al. PLDI 2014 §4,
// extended to partial schedules with a cut variable C): built once per
// trace as a base formula shared by all race queries; each query only adds
// O_a = O_b = C (Huang's substitution of O_a for O_b, which keeps the whole
// formula in integer difference logic).
//
#pragma once

#include "racepredict/analysis/mhb.h"
#include "racepredict/analysis/schedule_checker.h"
#include "racepredict/analysis/trace_index.h"
#include "racepredict/solver/formula.h"

#include <unordered_map>
#include <utility>
#include <vector>

namespace racepredict::solver {

using analysis::EventId;
using analysis::Step;
using analysis::SymId;
using analysis::ThreadId;
using analysis::TraceIndex;

class MaximalEncoding {
public:
  MaximalEncoding(const TraceIndex &idx, FormulaPool &pool);

  /// Order variables: one per event (its index), one per wait release half
  /// and barrier arrival half, and the cut C.
  uint32_t numOrderVars() const { return cut_ + 1; }
  OrderVar cut() const { return cut_; }
  OrderVar eventNode(EventId e) const { return e; }
  /// The release/arrival half of a wait/barrier event, or kNone.
  OrderVar halfNode(EventId e) const;

  /// The base constraints, labelled by family.
  const std::vector<std::pair<Label, F>> &base() const { return base_; }
  /// race(a, b): O_a = C ∧ O_b = C, plus implied facts that speed the
  /// solver up: per thread, the last event a or b must follow is before the
  /// cut and the first event that must follow a or b is after it.
  F raceQuery(EventId a, EventId b, const analysis::MustHappenBefore &mhb);
  /// The prefix schedule of a model: nodes with O < C in order, then a, b.
  std::vector<Step> witness(const std::vector<int64_t> &order, EventId a,
                            EventId b) const;

private:
  void encodeProgramOrder();
  void encodeSyncOrder();
  void encodeLocks();
  void encodeSemaphores();
  void encodeControlFlow(); // read_consistency.cpp
  F depsConcrete(const trace::Event &ev,
                 const std::vector<F> &tryfails); // read_consistency.cpp
  F concreteRead(EventId r);                      // read_consistency.cpp
  F refailing(EventId f);                         // read_consistency.cpp
  F in(OrderVar n) { return pool_.lt(n, cut_); }
  F out(OrderVar n) { return pool_.le(cut_, n); }
  OrderVar releaseNode(const analysis::LockSection &s) const;
  void add(Label l, F f) {
    if (f != pool_.top())
      base_.emplace_back(l, f);
  }

  const TraceIndex &idx_;
  FormulaPool &pool_;
  std::vector<OrderVar> half_; ///< per event: half node or kNone
  OrderVar cut_ = 0;
  std::vector<std::pair<Label, F>> base_;
  /// Per event: vc(w) for writes (all earlier reads concrete), K_r for reads.
  std::vector<F> valueConcrete_;
  std::vector<F> readConcrete_;
};

} // namespace racepredict::solver
