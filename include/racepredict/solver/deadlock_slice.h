//===- solver/deadlock_slice.h - A deadlock candidate on its slice --------===//
//
// Ownership candidates (lock cycles of any length, joins on blocked
// threads, threads their blocked creator never created, locks abandoned by
// a finished thread) are decided by where the members' threads stand
// alone: whether they are blocked for good does not depend on what other
// threads may still do. So, like a race pair, such a candidate only needs
// the members' prefixes and their closure (analysis/pair_slice.h,
// docs/slicing.md, "Deadlock queries"), decided by the same loop
// (pair_solver.h). Hang candidates stay on the whole-trace formula.
//
#pragma once

#include "racepredict/analysis/deadlock_candidates.h"
#include "racepredict/analysis/pair_slice.h"
#include "racepredict/solver/pair_solver.h"

namespace racepredict::solver {

/// Decides the ownership rules of `c` (c.ownership must hold): is there a
/// feasible cut with every member at its blocking event, the process not
/// exited, the forks of `c.forksDone` done and, per member with holders,
/// one of them finished? Sat: `steps` is the prefix schedule, validated by
/// checkDeadlockWitness (which fills `reasons`). `solver` is reset.
PairVerdict solveDeadlockOnSlice(const analysis::Slicer &slicer,
                                 QuerySolver &solver,
                                 const analysis::DeadlockCandidate &c,
                                 const PairSolveOptions &opts,
                                 std::vector<analysis::BlockReason> *reasons);

} // namespace racepredict::solver
