//===- trace/validate.h - Is a trace a sequentially consistent run? -------===//
//
// `racepredict check-trace` and the end-to-end tests use this to check that
// the recorder's observed order is a real execution: every read sees the
// last write (or the initial / first-read value), locks are exclusive, each
// wait's notify precedes it, fork precedes the child, join follows it, and
// so on (docs/recording.md lists the rules).
//
#pragma once

#include "racepredict/trace/trace.h"

#include <string>
#include <vector>

namespace racepredict::trace {

struct Violation {
  EventId event;
  std::string message; ///< one sentence, without the event number
  /// The trace describes no run at all (a thread's life out of order, a
  /// fork, join, notify, barrier or dependence pointing backwards): no
  /// analysis can use it. Otherwise values, locks or counts disagree with
  /// the observed order, which `analyze --allow-inconsistent` accepts.
  bool structural = false;
};

/// Checks `t` in trace order and returns up to `maxViolations` violations
/// (empty = consistent); only structural ones if `structuralOnly`.
std::vector<Violation> validateTrace(const Trace &t, size_t maxViolations = 1,
                                     bool structuralOnly = false);

/// Where a violation is, for messages: `PATH:LINE: event N: MESSAGE (at
/// SOURCE)` for a text trace (`lines`: each event's line), else `PATH:
/// event N: ...`.
std::string violationText(const Trace &t, const Violation &v,
                          const std::string &path,
                          const std::vector<uint32_t> &lines);

} // namespace racepredict::trace
