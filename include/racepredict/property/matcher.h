//===- property/matcher.h - Matching event patterns against trace events --===//
//
// Arguments and objects are compared by *canonical name*: a name that reads
// as an integer (decimal or 0x hex) is its decimal value, anything else is
// itself. So a custom argument recorded as the number 0x7f00 equals a lock
// whose key prints as 0x7f00, and the literal `3` equals an argument "3".
//
#pragma once

#include "racepredict/property/property.h"
#include "racepredict/trace/trace.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace racepredict::property {

using trace::EventId;
using trace::ThreadId;

/// Values of a pattern's variables (canonical ids) and thread variables;
/// kNone = unbound.
struct Binding {
  std::vector<uint32_t> vars;
  std::vector<ThreadId> threads;
  static Binding empty(const Pattern &p) {
    return {std::vector<uint32_t>(p.vars.size(), kNone),
            std::vector<ThreadId>(p.threadVars.size(), kNone)};
  }
  bool operator==(const Binding &o) const {
    return vars == o.vars && threads == o.threads;
  }
};

/// An event pattern with its literals resolved against one trace.
struct PreparedEvent {
  const EventPattern *p = nullptr;
  uint32_t name = kNone;      ///< canonical id of a custom name
  std::vector<uint32_t> lits; ///< per arg: canonical id of a literal
  bool impossible = false;    ///< a literal the trace never mentions
};

class TraceMatcher {
public:
  explicit TraceMatcher(const trace::Trace &t);
  const trace::Trace &trace() const { return t_; }

  PreparedEvent prepare(const EventPattern &p) const;
  /// Matches ignoring variables and thread labels (for candidate lists).
  bool matchesStatically(const PreparedEvent &p, EventId e) const;
  /// Full match under `b`. bind = true (a step): unbound variables and
  /// thread variables are bound on success, and a thread variable may not
  /// take a thread another one has. bind = false (a gap item): unbound
  /// variables match anything and `b` is left unchanged.
  bool matches(const PreparedEvent &p, EventId e, Binding &b, bool bind) const;

  /// Argument i of e: the i-th argument of a custom event, the object of a
  /// builtin event for i == 0; kNone if it has none.
  uint32_t argValue(EventId e, size_t i, bool builtin) const;
  /// The name a canonical id stands for (for reports).
  const std::string &canonicalName(uint32_t id) const { return strings_[id]; }
  /// Canonical id of a name, kNone if no event mentions it.
  uint32_t find(const std::string &name) const;

private:
  uint32_t intern(const std::string &name);

  const trace::Trace &t_;
  std::unordered_map<std::string, uint32_t> ids_;
  std::vector<std::string> strings_;
  std::vector<uint32_t> obj_;    ///< per event: canonical object / custom name
  std::vector<uint32_t> argOff_; ///< per event: CSR into args_ (custom)
  std::vector<uint32_t> args_;
};

/// The canonical form of a name: integers as decimal, others unchanged.
std::string canonical(const std::string &name);

} // namespace racepredict::property
