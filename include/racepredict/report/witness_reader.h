//===- report/witness_reader.h - One schema for witnesses, read strictly --===//
//
// A witness comes as an entry of a JSON report (`races`, `deadlocks`,
// `violations`) or as a `--witness-dir` file (with `kind`). `check-witness`
// and `replay` both read it here and turn it into steps here, so a file
// valid for one is valid for the other, and both read wait and barrier
// halves as the analyser wrote them (docs/inputs.md, "Witnesses"):
//
//   witness  event indices in schedule order (required); a race's ends with
//            its two events, a violation's with its last event
//   steps    the same schedule with the release halves of waits and the
//            arrival halves of barriers: [{"event": N, "half": B}] (files
//            always; reports when a half occurs). When present its events
//            must be `witness`; without it the halves are placed as
//            analysis::expandWitness does, and a blocked wait or barrier
//            (`half_done`) has done its first half.
//   race       first.event < second.event
//   deadlock   blocked: [{"event", "half_done", "blocked_on": {"kind",
//              "held_since": {"event"}}}], at least one
//   violation  property, pattern_index, events: [{"event"}] (at least one)
//
// Event indices are JSON integers from 0 to 2^32 - 2: a negative number,
// a fraction, 2^64 or a string is an error naming the field, never event 0
// or 4294967295. Unknown fields are ignored (reports carry many more).
//
#pragma once

#include "racepredict/analysis/access_pieces.h"
#include "racepredict/analysis/deadlock.h"
#include "racepredict/analysis/schedule_checker.h"
#include "racepredict/support/error.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace racepredict::report {

using analysis::EventId;

enum class WitnessKind { Race, Deadlock, Violation };

/// "race", "deadlock", "violation".
const char *witnessKindName(WitnessKind k);

/// One blocked thread of a deadlock witness.
struct WitnessBlock {
  EventId event = analysis::kNone;
  /// A wait or barrier blocked after its first half (default: whether the
  /// event has two halves).
  std::optional<bool> halfDone;
  /// What the file says it blocks on (replay checks exactly this).
  std::optional<analysis::BlockKind> on;
  /// Lock: the holder's acquisition (kNone when not given).
  EventId heldSince = analysis::kNone;
};

struct WitnessSpec {
  WitnessKind kind = WitnessKind::Race;
  std::string trace; ///< a file's "trace" field, as written ("" if none)
  std::vector<EventId> witness;
  std::optional<std::vector<analysis::Step>> steps;
  EventId first = 0, second = 0;     ///< race
  std::vector<WitnessBlock> blocked; ///< deadlock
  /// Violation: the property (by name; the file it is in, as written),
  /// which of its compiled patterns, the events matched to its steps.
  std::string property, propertyFile;
  size_t patternIndex = 0;
  std::vector<EventId> violationEvents;
};

/// Reads one witness of kind `kind` from `j`; errors start with `where`
/// and name the field ("w.json: race 2: first.event: -1 is not an event
/// index").
Expected<WitnessSpec> parseWitness(const nlohmann::json &j, WitnessKind kind,
                                   const std::string &where);

/// Every witness of the JSON `j` (read from `path`): a report's races,
/// deadlocks and violations (each must be a list), or the one witness of a
/// --witness-dir file (its "kind" must be race, deadlock or violation).
Expected<std::vector<WitnessSpec>> parseWitnesses(const nlohmann::json &j,
                                                  const std::string &path);

/// Every witness of `path`: a report's races, deadlocks and violations (each
/// must be a list), or the one witness of a --witness-dir file (its "kind"
/// must be race, deadlock or violation). The JSON's own errors name the
/// line and column.
Expected<std::vector<WitnessSpec>> readWitnesses(const std::string &path);

/// The one witness of a --witness-dir file (what `replay --schedule` takes).
Expected<WitnessSpec> readWitnessFile(const std::string &path);

/// The steps of a witness (its "steps", or the halves placed as the schema
/// says), validated on the trace semantics: a race's two events are next
/// and enabled after the prefix, a deadlock's threads are blocked for good
/// (on what the file says they block on, if it says), a violation's steps
/// are a valid prefix schedule that ends with its last event and passes
/// through its events in order. Errors are one sentence (no file name).
/// `reasons` (deadlocks) gets why each thread is blocked. With `pieces`
/// (the trace has accesses of different sizes to the same bytes,
/// analysis/access_pieces.h) a race is checked on them, each recorded
/// access whole at its step.
Expected<std::vector<analysis::Step>>
witnessSteps(const analysis::TraceIndex &idx, const WitnessSpec &w,
             std::vector<analysis::BlockReason> *reasons = nullptr,
             const analysis::PieceIndex *pieces = nullptr);

} // namespace racepredict::report
