//===- report/recording_stop_report.h - How the recording ended -----------===//
//
// When the recording stopped before the program's own end (trace::Trace::
// stop: a signal, a limit, an observed deadlock, exec), `run` and `analyze`
// say so: a note (the analysis covers a prefix of the run), and for an
// observed deadlock a TSan-shaped warning with each blocked thread, the
// call it is blocked in, where, and who holds the lock it waits for. The
// JSON report gets a "recording" object (DESIGN.md: fields are added, never
// renamed).
//
#pragma once

#include "racepredict/trace/trace.h"

#include <nlohmann/json.hpp>

#include <iosfwd>

namespace racepredict::report {

/// The recording ended in an observed deadlock (the run hung).
bool observedDeadlock(const trace::Trace &t);

/// The note, and the observed deadlock's warning; nothing when the
/// recording ran to the program's end.
void printRecordingStop(const trace::Trace &t, std::ostream &out);

/// Adds "recording": {"stopped", "value", "message"[, "text"]
/// [, "observed_deadlock": {"threads", "blocked": [{"thread", "op",
/// "object", "loc", "function", "held_by"}]}]} to a JSON report when the
/// recording stopped early.
void addRecordingStopJson(const trace::Trace &t, nlohmann::ordered_json &j);

} // namespace racepredict::report
