//===- analysis/candidate_groups.h - Candidates per source-location pair --===//
//
// The default report names one race per pair of source locations (a
// signature group, like TSan), so the predictor needs one racing pair per
// group, not every conflicting pair: a hot racy counter has quadratically
// many. Candidates therefore come in two phases (issue 7):
//
//  1. Nearest pairs, in one pass over each location: an access is paired
//     with the latest earlier access of every class (thread, signature,
//     lockset, kind) it conflicts with. The latest is the one the filters
//     are least likely to drop and the one closest in time (the smallest
//     reordering). At most `keepPerGroup` of them are kept per group.
//  2. Only for a group none of whose nearest pairs races: every
//     conflicting pair of the group, enumerated lazily (GroupPairs), so no
//     race is lost.
//
// Counting every conflicting pair is linear (per-location counters);
// enumerating them is not and happens only in phase 2 or with --all-pairs.
//
#pragma once

#include "racepredict/analysis/candidates.h"

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace racepredict::analysis {

/// The signature of an access: its source location, or (without one) the
/// event itself, so that events without debug info are never merged.
uint64_t signatureKey(const trace::Trace &t, EventId e);

struct CandidateOptions {
  bool filters = true;      ///< must-happen-before and lockset filters
  size_t keepPerGroup = 16; ///< phase-1 pairs kept per group
  /// Window mode: only pairs inside one window [kN, (k+1)N); 0 = none.
  uint32_t window = 0;
};

struct CandidateGroup {
  uint64_t sigA, sigB; ///< sigA <= sigB
  /// Phase 1 produced more pairs than it kept.
  bool truncated = false;
};

struct GroupedCandidates {
  /// Phase-1 pairs by (second, first); `group` indexes `groups`, numbered
  /// in order of their first pair.
  std::vector<Candidate> pairs;
  std::vector<CandidateGroup> groups;
  /// conflicting: every conflicting pair (counted, not enumerated);
  /// filtered*: among the nearest pairs.
  CandidateStats stats;
};

GroupedCandidates findCandidateGroups(const TraceIndex &idx,
                                      const MustHappenBefore &mhb,
                                      const CandidateOptions &opts);

/// Whether two accesses hold a common lock, not both in read mode.
bool holdCommonLock(const TraceIndex &idx, EventId a, EventId b);

/// The accesses (and frees) of each signature that has a source location.
class SignatureIndex {
public:
  explicit SignatureIndex(const TraceIndex &idx);
  /// The accesses and frees with signature `sig`, ascending.
  std::vector<EventId> accesses(uint64_t sig) const;

private:
  const TraceIndex &idx_;
  Csr bySource_;
};

/// Phase 2: every candidate pair of one group, lazily, by second access in
/// trace order and, for each, nearest first access first.
class GroupPairs {
public:
  GroupPairs(const TraceIndex &idx, const MustHappenBefore &mhb,
             const SignatureIndex &sigs, const CandidateOptions &opts,
             const CandidateGroup &g);
  /// The next candidate, or false when the group is exhausted.
  bool next(EventId *first, EventId *second);

private:
  const TraceIndex &idx_;
  const MustHappenBefore &mhb_;
  CandidateOptions opts_;
  CandidateGroup g_;
  std::vector<EventId> seconds_; ///< accesses and frees of either signature
  size_t i_ = 0;                 ///< current second access
  size_t k_ = 0;                 ///< position in its location's accesses
  bool started_ = false;
  /// The pairs with a free (filtered, by second event), after the others.
  std::vector<std::pair<EventId, EventId>> freePairs_;
  size_t j_ = 0;
};

} // namespace racepredict::analysis
