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
};

/// Checks `t` in trace order and returns up to `maxViolations` violations
/// (empty = consistent).
std::vector<Violation> validateTrace(const Trace &t, size_t maxViolations = 1);

} // namespace racepredict::trace
