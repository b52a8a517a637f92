//===- solver/property_encoding.h - A pattern occurrence as order atoms ---===//
#pragma once

#include "racepredict/property/candidates.h"
#include "racepredict/solver/race_encoding.h"

#include <vector>

namespace racepredict::solver {

/// violation(c) over the maximal encoding's order variables: the last step
/// is before the cut C (so all steps are in the prefix schedule, hence
/// feasible under Φ_cf), consecutive steps are ordered, and each gap event
/// lies before the gap's left step or after its right step (after step 0
/// for the leading gap). Pure difference logic.
F violationQuery(const MaximalEncoding &enc, FormulaPool &pool,
                 const property::Candidate &c);

/// The prefix schedule of a model: every node with O < C in order, cut
/// right after `last`.
std::vector<Step> prefixWitness(const MaximalEncoding &enc,
                                const TraceIndex &idx,
                                const std::vector<int64_t> &order,
                                EventId last);

} // namespace racepredict::solver
