//===- analysis/candidates.h - Conflicting pairs and sound filters --------===//
//
// Conflicting pairs (COPs, Huang §4): same location, same allocation
// generation, different threads, at least one writes, not both atomic; and a
// free with an access of the object it ends (in another thread). The
// filters drop only pairs that can provably never race (ordered by
// must-happen-before, or both accesses inside sections of a common lock, not
// both read mode); they are accelerators, never the verdict.
//
#pragma once

#include "racepredict/analysis/mhb.h"
#include "racepredict/analysis/trace_index.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace racepredict::analysis {

struct Candidate {
  EventId first, second; ///< first < second
  /// Index of the candidate's signature group (the unordered pair of source
  /// locations; events without a source location are their own signature).
  uint32_t group;
};

struct CandidateStats {
  size_t conflicting = 0;
  size_t filteredMhb = 0;
  size_t filteredLockset = 0;
};

bool conflicts(const TraceIndex &idx, EventId a, EventId b);

/// Calls fn(a, b) with a < b for every conflicting pair of the trace,
/// location by location, in time linear in the pairs that involve a write
/// and a plain access (not in all pairs of accesses).
void forEachConflictingPair(const TraceIndex &idx,
                            const std::function<void(EventId, EventId)> &fn);

/// Candidates in ascending (first, second) order; groups are numbered in
/// order of their first candidate.
std::vector<Candidate> findCandidates(const TraceIndex &idx,
                                      const MustHappenBefore &mhb,
                                      bool applyFilters, CandidateStats *stats);

} // namespace racepredict::analysis
