//===- trace/text_format.h - The `.rpt.txt` format of DESIGN.md ----------===//
//
// One event per line: `<thread> <op> [operands...] [@file:line[:col][@func]]`.
// Extensions over DESIGN.md (all optional, all round-trip through binary):
//   `t1 armw x NEW OLD`   the value an atomic rmw read (default: the value of
//                         x just before it in the observed order)
//   `t2 wait c m <- N`    the notify event N that woke this wait, or `<- none`
//                         (spurious or timed-out wake-up); default: the latest
//                         signal/broadcast on c before it that no other wait
//                         consumed
//   `@file:line:col@fn`   the function of a source location; file and
//                         function spell blank, '#', '%', '@' (and ':' in
//                         files) as %XX, e.g. `@a.cpp:3:0@f<int,%20long>`
//   `@loc @site @site...` a call stack: the event's location, then the
//                         call site of each enclosing frame, innermost first
//                         (`@-` = unknown location / call site)
//
#pragma once

#include "racepredict/support/error.h"
#include "racepredict/trace/trace.h"

#include <iosfwd>
#include <string>

namespace racepredict::trace {

/// Parses a text trace. `name` is used in error messages (`name:line: ...`);
/// `lines`, if given, gets each event's line number (for later messages).
Expected<Trace> parseTextTrace(std::istream &in, const std::string &name,
                               std::vector<uint32_t> *lines = nullptr);

/// Writes `t` in the text format; parsing the output yields an equal trace.
void writeTextTrace(const Trace &t, std::ostream &out);

/// Event flag while a trace is read: a wait's notify (or none) was given, so
/// finishTrace keeps it instead of matching the last notify; cleared there.
inline constexpr uint16_t kEventExplicitMatch = 1;

/// Resolves the defaults of the extensions above once all events are known
/// (used by the text and binary readers): wait↔notify matching and rmw old
/// values. Returns an error naming the event if the trace is inconsistent.
Expected<bool> finishTrace(Trace &t, const std::string &name);

} // namespace racepredict::trace
