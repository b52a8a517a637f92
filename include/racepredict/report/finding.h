//===- report/finding.h - One finding, independent of the trace -----------===//
//
// A race, deadlock or property violation as reports, suppressions and
// baselines need it: its sites (both accesses; the lock requests of a
// cycle) and its witness, each step resolved to thread, operation and
// source location. It no longer refers to a loaded trace, so `batch` can
// collect findings of many traces (and of Slurm tasks, through JSON) and
// write them as one JUnit/SARIF/JSON report.
//
#pragma once

#include "racepredict/solver/deadlock_predictor.h"
#include "racepredict/solver/race_predictor.h"
#include "racepredict/support/error.h"
#include "racepredict/trace/trace.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace racepredict::report {

enum class FindingKind { Race, Deadlock, Property };

/// "race", "deadlock", "property" (the suppression types).
const char *findingKindName(FindingKind k);
std::optional<FindingKind> findingKindFromName(const std::string &name);

/// One event of a finding: where it happened and what it did.
struct Site {
  int64_t event = -1; ///< event index in its trace
  std::string thread; ///< thread name in the trace
  std::string op;     ///< text-format op (`rd`, `wr`, `acq`, …)
  std::string object; ///< variable or lock name (addresses for binaries)
  std::string file;   ///< as recorded (debug info); empty without
  uint32_t line = 0, column = 0;
  std::string function;
  std::string text; ///< one readable line (report::describeEvent)
  /// `file:line[:col]`, or empty without a source location.
  std::string loc() const;
};

struct WitnessStep {
  Site site;
  bool essential = false; ///< a racing access or a blocked request
};

struct Finding {
  FindingKind kind = FindingKind::Race;
  /// Race: the variable; deadlock: the locks of the cycle; property: name.
  std::string object;
  /// Race: {first, second} (first.event < second.event); deadlock: one
  /// request per thread of the cycle, then the acquisitions they hold;
  /// property: the violating events.
  std::vector<Site> sites;
  std::vector<WitnessStep> witness;
  std::string message; ///< one sentence naming the sites
  /// How far it is confirmed: "predicted" (a validated witness schedule on
  /// the trace semantics) or, once replayed, the `replay` value of the JSON
  /// report ("confirmed", "diverged", "not-reproduced").
  std::string status = "predicted";
};

/// A race between events `first` < `second` of `t` with its witness.
Finding raceFinding(const trace::Trace &t, trace::EventId first,
                    trace::EventId second,
                    const std::vector<trace::EventId> &witness);

/// A lock-order deadlock: `requests[i]` is blocked while its thread holds
/// the section acquired at `held[i]`. The witness is followed by the
/// blocked requests, marked essential (they never complete).
Finding deadlockFinding(const trace::Trace &t,
                        const std::vector<trace::EventId> &requests,
                        const std::vector<trace::EventId> &held,
                        const std::vector<trace::EventId> &witness);

/// A violation of the ordering property `name` by `events` (the sites,
/// marked essential in the witness).
Finding propertyFinding(const trace::Trace &t, const std::string &name,
                        const std::vector<trace::EventId> &events,
                        const std::vector<trace::EventId> &witness);

/// The findings of one analysis, races first, in report order.
std::vector<Finding> findingsOf(const trace::Trace &t,
                                const solver::RaceResult &races,
                                const solver::DeadlockResult *deadlocks,
                                const analysis::TraceIndex &idx);

/// JSON form (round-trips through findingFromJson): what `batch --json`
/// writes per finding and Slurm tasks hand back to the merging process.
nlohmann::ordered_json siteJson(const Site &s);
nlohmann::ordered_json findingJson(const Finding &f);
/// Errors name the missing or mistyped field.
Expected<Finding> findingFromJson(const nlohmann::json &j);
Expected<Site> siteFromJson(const nlohmann::json &j);

} // namespace racepredict::report
