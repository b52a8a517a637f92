//===- solver/slice_encoding.h - The maximal encoding of one slice --------===//
//
// The formula of docs/semantics.md restricted to one candidate's slice
// (analysis/pair_slice.h, docs/slicing.md): events outside the slice are
// after the cut, which every constraint family simplifies away exactly,
// except where a helper outside the slice could make something possible —
// there an escape literal stands for it (assumed false when solving; in an
// unsat core it asks for the slice to grow).
//
// Only nodes that occur in some constraint other than program order get an
// order variable; program order links consecutive such nodes of a thread
// (exact: the atoms are comparisons, so a model can be spread out to fit
// every unnamed event between its neighbours). Two families are added
// lazily, when a candidate schedule violates them: lock exclusion between
// two sections and "no other write in between" for a read's chosen writer.
// Leaving them out only admits more models, so UNSAT stays UNSAT, and a
// model is accepted only when its schedule violates none of them.
//
#pragma once

#include "racepredict/analysis/pair_slice.h"
#include "racepredict/analysis/schedule_checker.h"
#include "racepredict/solver/formula.h"

#include <functional>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace racepredict::solver {

using analysis::EventId;
using analysis::PairSlice;
using analysis::Slicer;
using analysis::Step;
using analysis::ThreadId;

class SliceEncoding {
public:
  /// An escape literal and the helpers outside the slice it stands for.
  struct Escape {
    BoolVar var;
    std::vector<EventId> helpers;
  };

  /// Encodes the slice (which must not change while this object lives).
  /// `eagerLocks`: all lock-exclusion clauses of the slice up to this many
  /// section pairs, and all "nothing in between" constraints up to this
  /// many, are added up front; beyond, they are added lazily.
  /// `decideEarly`: for a race, first look for a read without a writer
  /// (noWriterForForcedRead) and build no formula if there is one.
  SliceEncoding(const Slicer &slicer, const PairSlice &slice, FormulaPool &pool,
                size_t eagerLocks = 4096, bool decideEarly = true);

  /// Constraints added since the last call (to assert in the solver).
  std::vector<F> takeNew();
  /// A read that no write in or outside the slice can feed (not even
  /// through an escape) is needed by a branch every witness of the race
  /// runs: the formula is unsatisfiable by propagation alone, and the
  /// solver need not see it (slice_forced_reads.cpp). Found before the
  /// formula was built (then nothing else of this object is usable), or
  /// in the formula's conc(r) of the reads that matter.
  bool impossibleReadForced() const;
  /// The same decision from the slice's data alone, without a formula.
  bool noWriterForForcedRead() const;
  const std::vector<Escape> &escapes() const { return escapes_; }
  /// ¬escape for every escape: the assumptions of a check.
  std::vector<F> assumptions();
  uint32_t numOrderVars() const { return nextVar_; }
  /// Per order variable, its node's place in the observed run (the cut:
  /// after everything).
  std::vector<uint64_t> observedRanks() const;
  /// The Boolean variables true in the observed run (K_r, A_i, the
  /// observed writer's option).
  const std::vector<BoolVar> &observedTrueBools() const {
    return observedTrue_;
  }
  bool differenceLogicOnly() const { return !pool_.hasPb(); }

  /// For the queries of other bug kinds over a slice without a racing
  /// pair (deadlock_query.cpp): node (t, unit) of the slice is before the
  /// cut / at or after it (simplified like every atom), and a constraint
  /// of the query (taken by the next takeNew()).
  const PairSlice &slice() const { return s_; }
  F inCut(ThreadId t, uint32_t unit) { return in(t, unit); }
  F afterCut(ThreadId t, uint32_t unit) { return out(t, unit); }
  void require(F f) { add(f); }

  /// The schedule of a model (order values of all variables): the slice
  /// nodes before the cut by (value, thread, unit), then a and b (if the
  /// slice has a racing pair). In window
  /// mode the witness is frozenPrefix() followed by it.
  std::vector<Step> schedule(const std::vector<int64_t> &order) const;
  std::vector<Step> frozenPrefix() const;
  /// Adds the lazy constraints that `sigma` (schedule() of this model)
  /// violates; returns how many. Zero means the model is a witness.
  size_t refine(const std::vector<Step> &sigma,
                const std::function<bool(BoolVar)> &boolValue);

  /// The lazy constraints added so far, to carry over to the encoding of a
  /// grown slice (they remain constraints of the whole-trace formula).
  struct Learned {
    std::vector<std::pair<uint32_t, uint32_t>> locks;
    std::vector<std::tuple<EventId, EventId, EventId>> reads; ///< r, w, w'
  };
  Learned learned() const;
  void relearn(const Learned &l);

private:
  // Nodes (slice_encoding.cpp).
  enum class Status { Absent, Frozen, Free };
  Status status(ThreadId t, uint32_t unit) const;
  Status eventStatus(EventId e) const;
  Status halfStatus(EventId e) const;
  OrderVar var(ThreadId t, uint32_t unit);
  OrderVar eventVar(EventId e);
  OrderVar halfVar(EventId e);
  /// O_x < O_y for slice units, simplified for frozen and absent ones
  /// (absent = after every present node; frozen = before every free one).
  F before(ThreadId tx, uint32_t ux, ThreadId ty, uint32_t uy);
  F beforeEv(EventId x, EventId y);
  F in(ThreadId t, uint32_t unit);  ///< before the cut
  F out(ThreadId t, uint32_t unit); ///< at or after the cut
  void add(F f);
  uint32_t releaseUnit(const analysis::LockSection &s) const;

  uint32_t racePast(ThreadId t) const;
  void findForced();
  void encodeRace();
  void findLockedPasts();
  uint32_t mustPrecede(EventId r, ThreadId u) const;
  void encodeSyncOrder();
  void encodeSemaphores();
  void encodeLocks();
  // Values (slice_values.cpp).
  void encodeControlFlow();
  uint32_t chainEnd(ThreadId th) const;
  bool valueTracked(EventId w) const;
  /// The writers of r's options (kNone: the initial value), r's own
  /// thread's last earlier write and whether it is free.
  struct ReadOptions {
    std::vector<EventId> writers;
    EventId own;
    bool ownFree;
  };
  ReadOptions optionWriters(EventId r, size_t limit) const;
  F concreteRead(EventId r);
  // Needed reads (slice_forced_reads.cpp).
  /// The reads a branch every witness runs needs: per thread those below
  /// chainBelow (through the chain A_i), and those listed by a precise
  /// branch (deps).
  struct ForcedNeeds {
    std::vector<uint32_t> chainBelow;
    std::unordered_set<EventId> deps;
    bool needs(const analysis::TraceIndex &idx, EventId r) const;
  };
  ForcedNeeds forcedNeeds() const;
  F refailing(EventId f);
  BoolVar escapeFor(std::vector<EventId> helpers);
  // Lazy families (slice_refine.cpp).
  F lockClause(uint32_t s1, uint32_t s2);
  void addLockClause(uint32_t s1, uint32_t s2);
  struct Option;
  bool addIntervening(EventId r, const Option &o, EventId w2);
  void addInterveningUpFront(size_t budget);

  const analysis::TraceIndex &idx_;
  const Slicer &slicer_;
  const PairSlice &s_;
  FormulaPool &pool_;
  OrderVar cut_;
  uint32_t nextVar_ = 0;
  /// Per thread: used unit → order variable.
  std::vector<std::map<uint32_t, OrderVar>> vars_;
  std::vector<F> new_;
  std::vector<Escape> escapes_;
  std::vector<BoolVar> observedTrue_; ///< observedTrueBools()
  BoolVar observedTrue(BoolVar v) {
    observedTrue_.push_back(v);
    return v;
  }
  /// Per section with a release outside the slice: its escape (or kNone).
  std::unordered_map<uint32_t, BoolVar> releaseEscape_;
  std::set<std::pair<uint32_t, uint32_t>> lockPairs_;

  // Φ_cf state.
  std::unordered_map<EventId, F> readK_;   ///< K_r of reads that matter
  std::unordered_map<EventId, F> chainAt_; ///< A after each read/tryfail
  struct Option {
    EventId writer; ///< kNone: the initial value (or the window's start)
    BoolVar var;
  };
  std::unordered_map<EventId, std::vector<Option>> options_;
  std::set<std::tuple<EventId, EventId, EventId>> intervening_;
  /// Reads that matter with no option at all.
  std::vector<EventId> impossible_;
  /// noWriterForForcedRead held before the formula was built.
  bool refutedEarly_ = false;
  /// Per thread: events every witness of the race runs (its prefixes up to
  /// what a or b must follow, within the slice); empty for other queries.
  std::vector<uint32_t> forced_;
  /// Per thread of a or b: for each section it holds at a or b, the
  /// position of its acquire and, per thread, how many events must precede
  /// that acquire in every witness (findLockedPasts).
  struct LockedPast {
    uint32_t acquirePos;
    std::vector<uint32_t> before;
  };
  std::vector<std::vector<LockedPast>> lockedPasts_;
};

} // namespace racepredict::solver
