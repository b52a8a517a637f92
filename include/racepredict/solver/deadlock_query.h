//===- solver/deadlock_query.h - A deadlock candidate as a formula --------===//
//
// The constraints one deadlock candidate adds to the maximal encoding
// (docs/semantics.md, "Deadlocks"): the cut puts each member's thread at its
// blocking event (after the first half of a wait or barrier), the process
// has not exited, and the threads the candidate's rules need finished are
// finished — the holder of an abandoned lock, the creator of a thread that
// must exist, or, for a hang, every thread outside the set.
//
#pragma once

#include "racepredict/analysis/deadlock_candidates.h"
#include "racepredict/analysis/mhb.h"
#include "racepredict/solver/race_encoding.h"

namespace racepredict::solver {

/// `mhb`, if given, adds implied must-happen-before facts (faster, same
/// answer).
F deadlockQuery(const analysis::TraceIndex &idx, MaximalEncoding &enc,
                FormulaPool &pool, const analysis::DeadlockCandidate &c,
                const analysis::MustHappenBefore *mhb = nullptr);

/// The prefix schedule of a model: every node before the cut, in order.
std::vector<Step> deadlockPrefix(const MaximalEncoding &enc,
                                 const std::vector<int64_t> &order);

} // namespace racepredict::solver
