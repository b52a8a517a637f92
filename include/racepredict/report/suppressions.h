//===- report/suppressions.h - TSan-style suppression files ---------------===//
//
// One rule per line, as ThreadSanitizer's: `race:PATTERN`,
// `deadlock:PATTERN`, `property:PATTERN`; `#` starts a comment line; blank
// lines are ignored. A pattern matches as a substring with `*` wildcards;
// `^` / `$` anchor it at the start / end (TSan's TemplateMatch). A race
// rule matches when the pattern matches a function, a source file path or
// the variable of either access; a deadlock rule, a function, file or lock
// of the cycle (requests and held acquisitions); a property rule, the
// property's name. A TSan suppression file works as it is: `race_top:`
// matches only the accesses' own (top) frames, function or file, and the
// types racepredict has no report for (`mutex:` misuse, `thread:` leaks,
// `signal:` unsafe calls, `called_from_lib:` interception in uninstrumented
// libraries, which are never recorded) are accepted with a warning each.
//
#pragma once

#include "racepredict/report/finding.h"
#include "racepredict/support/error.h"

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace racepredict::report {

struct Suppression {
  FindingKind kind;
  std::string pattern;
  std::string file; ///< where the rule was written
  size_t line = 0;
  /// `race_top:`: the accesses' functions and files only, not the variable.
  bool topFrameOnly = false;
  /// `race:foo` as written, for reports of what matched.
  std::string text() const;
};

/// `*` wildcards, `^`/`$` anchors, otherwise a substring match.
bool templateMatch(const std::string &pattern, const std::string &s);

class Suppressions {
public:
  /// Parses rules; errors are `NAME:LINE: message`.
  static Expected<Suppressions> parse(std::istream &in,
                                      const std::string &name);
  static Expected<Suppressions> load(const std::string &path);

  const std::vector<Suppression> &rules() const { return rules_; }
  /// One sentence per rule accepted but ignored (`FILE:LINE: warning: ...`).
  const std::vector<std::string> &warnings() const { return warnings_; }
  bool empty() const { return rules_.empty(); }

  /// Index into rules() of the first rule that matches `f`.
  std::optional<size_t> match(const Finding &f) const;

private:
  std::vector<Suppression> rules_;
  std::vector<std::string> warnings_;
};

/// Drops suppressed races and deadlocks from an analysis result (what
/// `analyze --suppressions` does before reporting). Returns how many.
/// Rules look at a finding's kind, object and sites only: no index needed.
size_t removeSuppressed(const Suppressions &s, const trace::Trace &t,
                        solver::RaceResult &races,
                        solver::DeadlockResult *deadlocks);

} // namespace racepredict::report
