//===- replay/violation_verdict.h - Did the replay exhibit the violation? -===//
//
// A violation schedule runs the witness to its last violating event; the
// runtime then reports what every step did in the replayed run (the
// result file's `observe` lines: the object or address it operated on,
// and a custom event's name and arguments) and leaves the judgement to the
// tool. The judgement rebuilds the witness as the replayed run executed it
// — the recorded events in schedule order, their objects and custom
// arguments replaced by the observed ones — and checks the property's
// pattern on it with the same definition the predictor's witnesses are
// checked with (property/pattern_check.h). So a violation is confirmed
// only if the real run's custom events, with their real arguments, form
// the pattern under one binding, with no gap event in between
// (docs/properties.md, "Replay").
//
#pragma once

#include "racepredict/property/property.h"
#include "racepredict/replay/runner.h"
#include "racepredict/replay/schedule.h"
#include "racepredict/support/error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace racepredict::replay {

/// What one full step of a violation schedule did in the replayed run.
struct StepObservation {
  uint32_t step = 0;   ///< index into Schedule::steps
  uint64_t object = 0; ///< sync object or accessed address (0: none)
  bool custom = false;
  std::string name;              ///< custom event name
  std::vector<std::string> args; ///< "0x.." numbers, or spec literals
};

/// Parses the values of `observe` lines: `STEP OBJ [ev NAME ARG...]`, ARG
/// `#0xHEX` (a number as recorded) or `=NAME` (a literal of the spec),
/// names percent-encoded. Errors name the bad line.
Expected<std::vector<StepObservation>>
parseObservations(const std::vector<std::string> &lines);

/// The violation to confirm: the pattern and the trace events matched to
/// its steps (in step order; each must be a step of the schedule).
struct ViolationTarget {
  const property::Pattern *pattern = nullptr;
  std::vector<EventId> events;
};

struct ViolationVerdict {
  Verdict verdict = Verdict::NotReproduced;
  std::string message;
};

/// Judges a replay of `s` (a violation schedule built from trace `t`)
/// that reached its last step: Confirmed if the observed steps exhibit the
/// pattern with `target.events`' steps; Diverged if a step executed
/// another custom event than the witness's; NotReproduced otherwise (a
/// step not observed, arguments that no longer bind consistently, a gap
/// event that now matches), with the reason.
ViolationVerdict judgeViolation(const trace::Trace &t, const Schedule &s,
                                const ViolationTarget &target,
                                const std::vector<StepObservation> &obs);

} // namespace racepredict::replay
