//===- tools/racepredict/witness_input.h - Read a --witness-dir file ------===//
#pragma once

#include "racepredict/analysis/schedule_checker.h"
#include "racepredict/replay/schedule.h"
#include "racepredict/support/error.h"

#include <string>
#include <vector>

namespace racepredict::tool {

/// A witness file (report/witness_file.h) as `replay` needs it.
struct WitnessInput {
  bool deadlock = false;
  bool violation = false; ///< a property violation ("kind": "violation")
  std::string trace;      ///< the "trace" field, as written
  analysis::EventId first = 0, second = 0;
  std::vector<replay::DeadlockBlock> blocked; ///< deadlocks
  /// Violations: the property (by name, in `propertyFile` as written),
  /// which of its compiled patterns, and the events matched to its steps.
  std::string property, propertyFile;
  size_t patternIndex = 0;
  std::vector<analysis::EventId> violationEvents;

  std::vector<analysis::EventId> witness;
  std::vector<analysis::Step> steps; ///< empty if the file has none
};

/// Parses the JSON; errors name the file and the missing/bad field.
Expected<WitnessInput> readWitnessFile(const std::string &path);

/// The steps of the witness (its "steps", or the halves placed by
/// expandWitness), validated against the trace semantics: a witness that
/// does not lead to its bug in the trace is rejected before any replay.
Expected<std::vector<analysis::Step>>
validatedSteps(const analysis::TraceIndex &idx, const WitnessInput &w,
               const std::string &path);

/// The schedule file contents for a validated witness.
Expected<replay::Schedule> scheduleFor(const analysis::TraceIndex &idx,
                                       const WitnessInput &w,
                                       const std::vector<analysis::Step> &s,
                                       report::SourceText &src);

} // namespace racepredict::tool
