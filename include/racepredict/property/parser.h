//===- property/parser.h - The property language (docs/properties.md) -----===//
//
//   property NAME(PARAM, ...):          # a block; indented statements follow
//       description "text"
//       forbid STEP; [no ITEM, ...] STEP; ...          (sequence patterns)
//       start STATE                                     (typestate)
//       STATE -> STATE on EVENT, EVENT
//       atomic BEGIN .. END                             (atomicity)
//
// Parse errors name the file, line and column ("props.txt:4:12: ...").
//
#pragma once

#include "racepredict/property/property.h"
#include "racepredict/support/error.h"

#include <string>
#include <vector>

namespace racepredict::property {

/// Parses and compiles every property of `text`; `fileName` is used in
/// messages and recorded in each Property.
Expected<std::vector<Property>> parseProperties(const std::string &text,
                                                const std::string &fileName);

/// Reads `path` and parses it ("cannot open property file 'x'" if absent).
Expected<std::vector<Property>> parsePropertyFile(const std::string &path);

// --- the compilers of the two derived forms (compile_*.cpp) --------------

/// A typestate transition; `to` may be "error".
struct Transition {
  std::string from, to;
  EventPattern label;
  uint32_t line = 0;
};

struct TypestateDecl {
  std::string start;
  std::vector<Transition> transitions;
  std::vector<std::string> vars; ///< the property's parameters
  std::vector<std::string> threadVars;
};

/// Compiles a typestate to sequence patterns: for every error transition
/// (state q, event x) — explicit, or implicit for an alphabet event that q
/// has no transition for — "s; [no setter] x" for each event s that leads
/// to q, and "[no setter] x" if q is the start state. Requires every event
/// to be a setter (all its non-error transitions reach one state) or an
/// observer (all its non-error transitions are self-loops); returns an
/// error naming the event otherwise.
Expected<std::vector<Pattern>> compileTypestate(const TypestateDecl &d,
                                                const std::string &where);

struct AtomicDecl {
  EventPattern begin, end;
  std::vector<std::string> vars;
};

/// Compiles region atomicity to the five unserializable interleavings
/// (R-W-R, W-W-R, R-W-W, W-R-W, W-W-W): two consecutive accesses of a
/// thread to one location inside a BEGIN..END region of that thread, with
/// an access of another thread in between (Lu et al.'s AVIO patterns).
std::vector<Pattern> compileAtomicity(const AtomicDecl &d);

} // namespace racepredict::property
