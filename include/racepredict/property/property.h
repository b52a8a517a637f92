//===- property/property.h - Custom order properties: the compiled form ---===//
//
// A property file (docs/properties.md) declares properties in three forms —
// forbidden sequences, typestates over a parametric object, and atomicity of
// a marked region — and all three compile to the one core form decided here:
// a *sequence pattern*, k steps that must occur in a prefix schedule in this
// order, with "no event of S in between" gaps (Carril 2017 §6 expresses the
// same use cases as CSP processes checked by FDR; we compile them to order
// constraints instead, so they share the race encoding's order variables).
//
#pragma once

#include "racepredict/trace/event.h"

#include <cstdint>
#include <string>
#include <vector>

namespace racepredict::property {

using trace::kNone;

/// One argument position of an event pattern.
struct Arg {
  enum Kind : uint8_t { Var, Literal, Wildcard } kind = Wildcard;
  std::string text;     ///< literal text or variable name
  uint32_t var = kNone; ///< index into Pattern::vars for Var
};

/// What one step or gap item matches: a custom event by name, a trace
/// event kind (`@acq`, `@read`, ...), or any event (`*`).
struct EventPattern {
  enum Class : uint8_t { Custom, Builtin, Any } cls = Custom;
  std::string name; ///< as written (custom name, or builtin without '@')
  /// Builtin: the kinds it matches (groups such as @read have several).
  std::vector<trace::EventKind> kinds;
  /// Written with parentheses: the first args.size() arguments (custom) or
  /// the object (builtin) must match; further arguments are ignored.
  std::vector<Arg> args;
  uint32_t thread = kNone; ///< index into Pattern::threadVars, or any thread
  uint32_t line = 0;       ///< position in the property file (messages)
};

/// A sequence pattern: steps[0] ... steps[k-1] in this order in a prefix
/// schedule that ends with steps[k-1]; no event matching gaps[i] lies
/// strictly between steps[i-1] and steps[i] (gaps[0]: from the start of the
/// schedule to steps[0]). Variables bind event arguments/objects; a gap
/// item's variables that no step binds match anything. Distinct thread
/// variables bind distinct threads.
struct Pattern {
  std::vector<EventPattern> steps;
  std::vector<std::vector<EventPattern>> gaps; ///< size == steps.size()
  std::vector<std::string> vars;
  std::vector<std::string> threadVars;
  /// What this pattern stands for, for reports: "forbid (line 4)",
  /// "typestate: close(f) in state closed", "atomicity R-W-R".
  std::string origin;
};

struct Property {
  enum Kind : uint8_t { Forbid, Typestate, Atomicity } kind = Forbid;
  std::string name;
  std::string file;
  uint32_t line = 0;
  std::vector<std::string> params;
  std::string description;
  /// The compiled form: a violation is an occurrence of any of them.
  std::vector<Pattern> patterns;
};

const char *kindName(Property::Kind k);

/// `close(f)`, `t1: @rd(x)`, `*`: an event pattern as written.
std::string toString(const EventPattern &p, const Pattern &owner);
/// The whole pattern in the property language's syntax.
std::string toString(const Pattern &p);

} // namespace racepredict::property
