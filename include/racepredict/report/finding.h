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

#include <functional>
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
  /// Shown by the condensed witness (witness_condense.h): reordered
  /// synchronisation, a read that kept its value, an involved thread's
  /// last steps.
  bool important = false;
};

struct Finding {
  FindingKind kind = FindingKind::Race;
  /// Race: the variable; deadlock: the objects its threads block on;
  /// property: its name.
  std::string object;
  /// Race: {first, second} (first.event < second.event); deadlock: the
  /// blocked event of each of its k threads, then k related sites, one per
  /// thread (the acquisition of the lock it waits for, else its blocked
  /// event again); property: the violating events.
  std::vector<Site> sites;
  std::vector<WitnessStep> witness;
  std::string message; ///< one sentence naming the sites
  /// Deadlock: its kind (analysis::deadlockKind: "lock-order", "semaphore",
  /// ...); empty otherwise.
  std::string subkind;
  /// Deadlock: why each blocked thread is stuck, one per primary site.
  std::vector<std::string> notes;
  /// How far it is confirmed: "predicted" (a validated witness schedule on
  /// the trace semantics) or, once replayed, the `replay` value of the JSON
  /// report ("confirmed", "diverged", "not-reproduced").
  std::string status = "predicted";
};

/// A race between events `first` < `second` of `t` with its witness.
Finding raceFinding(const trace::Trace &t, trace::EventId first,
                    trace::EventId second,
                    const std::vector<trace::EventId> &witness);

/// A deadlock of kind `kind` (analysis::deadlockKind): `blocked` are the
/// events its threads never complete (one per thread), `reasons` one
/// sentence each (report::describeBlock), `held[i]` the acquisition of the
/// lock blocked[i] waits for (kNone if it waits for no lock). The witness is
/// followed by the blocked events, marked essential (they never complete).
Finding deadlockFinding(const trace::Trace &t, const std::string &kind,
                        const std::vector<trace::EventId> &blocked,
                        const std::vector<std::string> &reasons,
                        const std::vector<trace::EventId> &held,
                        const std::vector<trace::EventId> &witness);
/// The same for a finding of the predictor.
Finding deadlockFinding(const trace::Trace &t,
                        const solver::DeadlockFinding &d);

/// A violation of the ordering property `name` by `events` (the sites,
/// marked essential in the witness).
Finding propertyFinding(const trace::Trace &t, const std::string &name,
                        const std::vector<trace::EventId> &events,
                        const std::vector<trace::EventId> &witness);

/// The findings of one analysis, races first, in report order, handed to
/// `use` one at a time (a report of thousands of long witnesses holds one).
void forEachFinding(const trace::Trace &t, const solver::RaceResult &races,
                    const solver::DeadlockResult *deadlocks,
                    const std::function<void(Finding &&)> &use);
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
