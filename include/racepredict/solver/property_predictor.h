//===- solver/property_predictor.h - Predicted custom property violations -===//
//
// For every candidate tuple of a property's patterns (property/candidates.h)
// one query to the maximal encoding shared with races (docs/semantics.md):
// the steps are in the prefix schedule, in order, and every gap event lies
// outside its interval; Φ_mhb ∧ Φ_lock ∧ Φ_sem ∧ Φ_cf make the prefix
// feasible. A model, sorted and cut after the last step, is the witness; it
// is validated by the schedule checker and, independently, by checking the
// pattern on the witness before it is reported.
//
#pragma once

#include "racepredict/analysis/schedule_checker.h"
#include "racepredict/analysis/trace_index.h"
#include "racepredict/property/property.h"

#include <string>
#include <utility>
#include <vector>

namespace racepredict::solver {

struct PropertyOptions {
  /// Report every violating tuple, not one per property and tuple of
  /// source locations.
  bool allInstances = false;
  unsigned timeoutMs = 0; ///< per query; a time-out is `unknown`
  uint64_t rlimit = 0;
  /// Skip must-happen-before pruning of candidates (testing).
  bool noFilters = false;
  size_t maxCandidates = 200000; ///< per property
  std::string dumpSmt2Dir;
};

struct ViolationFinding {
  uint32_t property = 0; ///< index into the property list
  uint32_t pattern = 0;  ///< index into its patterns
  /// One event per step, in step order; the last ends the witness.
  std::vector<analysis::EventId> events;
  /// Variable (and thread variable) = value, for reports.
  std::vector<std::pair<std::string, std::string>> binding;
  /// The observed order already exhibits it (reported, nothing predicted).
  bool observed = false;
  std::vector<analysis::EventId> witness; ///< events in schedule order
  std::vector<analysis::Step> steps;      ///< with wait/barrier halves
};

struct UnknownViolation {
  uint32_t property = 0, pattern = 0;
  std::vector<analysis::EventId> events; ///< empty: the candidate limit
  std::string reason;
};

struct PropertyStats {
  size_t properties = 0, patterns = 0;
  size_t tuples = 0;      ///< matching tuples
  size_t prunedOrder = 0; ///< steps ordered backwards by MHB
  size_t prunedGap = 0;   ///< a gap event certainly in between
  size_t candidates = 0, observed = 0;
  size_t solverCalls = 0, sat = 0, unsat = 0, unknown = 0;
  double seconds = 0;
};

struct PropertyResult {
  /// Sorted by property, then by the candidates' order.
  std::vector<ViolationFinding> violations;
  std::vector<UnknownViolation> unknowns;
  /// Steps whose custom event name or literal no trace event has (a typo
  /// in the property file, or the spec records no such event).
  std::vector<std::string> warnings;
  PropertyStats stats;
};

PropertyResult predictViolations(const analysis::TraceIndex &idx,
                                 const std::vector<property::Property> &props,
                                 const PropertyOptions &opts);

} // namespace racepredict::solver
