//===- property/candidates.h - Event tuples that may violate a pattern ----===//
//
// Every assignment of trace events to a pattern's steps that matches
// (names, literal arguments, consistent variables, distinct threads), that
// must-happen-before does not put out of order, and whose gaps are not
// certainly violated. Each is one query for the solver, the way each
// conflicting pair is one race query.
//
#pragma once

#include "racepredict/analysis/mhb.h"
#include "racepredict/property/matcher.h"

#include <vector>

namespace racepredict::property {

struct Candidate {
  uint32_t pattern = 0;        ///< index into Property::patterns
  std::vector<EventId> events; ///< one per step, in step order
  Binding binding;
  /// Per gap i: the events matching gaps[i] whose order with the steps is
  /// not fixed by must-happen-before; the encoding keeps each out of the
  /// interval (step i-1, step i) — of (start, step 0) for i = 0.
  std::vector<std::vector<EventId>> gapEvents;
  /// The observed order itself exhibits the pattern (nothing to predict).
  bool observed = false;
};

struct CandidateOptions {
  /// Stop after this many candidates per property (then `truncated`).
  size_t maxCandidates = 200000;
  /// Prune with must-happen-before (off: only for testing that the
  /// pruning drops nothing the solver would accept).
  bool filters = true;
};

struct CandidateStats {
  size_t tuples = 0;      ///< matching tuples before gap pruning
  size_t prunedOrder = 0; ///< dropped: steps ordered backwards by MHB
  size_t prunedGap = 0;   ///< dropped: a gap event certainly in between
  bool truncated = false;
};

std::vector<Candidate> findCandidates(const analysis::TraceIndex &idx,
                                      const analysis::MustHappenBefore &mhb,
                                      const TraceMatcher &m,
                                      const Property &prop,
                                      const CandidateOptions &opts,
                                      CandidateStats *stats);

} // namespace racepredict::property
