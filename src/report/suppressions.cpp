//===- report/suppressions.cpp - Parse and match suppression rules --------===//
#include "racepredict/report/suppressions.h"

#include "racepredict/support/file_io.h"

#include <fstream>
#include <istream>

namespace racepredict::report {

std::string Suppression::text() const {
  return std::string(topFrameOnly ? "race_top" : findingKindName(kind)) + ":" +
         pattern;
}

namespace {

/// Glob match of `p[i..]` against `s[j..]` with `*` only; iterative with
/// one backtrack point, so it is linear-ish and never recurses deeply.
bool globMatch(const std::string &p, const std::string &s) {
  size_t i = 0, j = 0, star = std::string::npos, mark = 0;
  while (j < s.size()) {
    if (i < p.size() && p[i] == '*') {
      star = i++;
      mark = j;
    } else if (i < p.size() && p[i] == s[j]) {
      ++i;
      ++j;
    } else if (star != std::string::npos) {
      i = star + 1;
      j = ++mark;
    } else {
      return false;
    }
  }
  while (i < p.size() && p[i] == '*')
    ++i;
  return i == p.size();
}

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos)
    return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

/// TSan's suppression types for reports racepredict never makes, and why
/// a rule of that type can be ignored.
const char *ignoredBecause(const std::string &type) {
  if (type == "mutex")
    return "racepredict reports no mutex misuse";
  if (type == "thread")
    return "racepredict reports no thread leaks";
  if (type == "signal")
    return "racepredict reports no signal-unsafe calls";
  if (type == "called_from_lib")
    return "calls from libraries not built with racepredict-cc are never "
           "recorded";
  return nullptr;
}

} // namespace

bool templateMatch(const std::string &pattern, const std::string &s) {
  if (pattern.empty() || s.empty())
    return false;
  std::string p = pattern;
  bool start = p[0] == '^';
  if (start)
    p.erase(0, 1);
  bool end = !p.empty() && p.back() == '$';
  if (end)
    p.pop_back();
  return globMatch((start ? "" : "*") + p + (end ? "" : "*"), s);
}

Expected<Suppressions> Suppressions::parse(std::istream &in,
                                           const std::string &name) {
  Suppressions out;
  std::string raw;
  size_t lineNo = 0;
  while (std::getline(in, raw)) {
    ++lineNo;
    std::string line = trim(raw);
    if (line.empty() || line[0] == '#')
      continue;
    std::string where = name + ":" + std::to_string(lineNo) + ": ";
    size_t colon = line.find(':');
    if (colon == std::string::npos)
      return Error{where +
                   "expected TYPE:PATTERN (e.g. race:my_function), "
                   "got '" +
                   line + "'"};
    std::string type = trim(line.substr(0, colon));
    std::string pattern = trim(line.substr(colon + 1));
    bool top = type == "race_top";
    auto kind = top ? FindingKind::Race : findingKindFromName(type);
    const char *ignored = ignoredBecause(type);
    if (!kind && !ignored)
      return Error{where + "unknown suppression type '" + type +
                   "' (racepredict knows race, race_top, deadlock and "
                   "property, and ignores TSan's mutex, thread, signal and "
                   "called_from_lib)"};
    if (pattern.empty() || pattern == "^" || pattern == "$" || pattern == "^$")
      return Error{where + "empty pattern after '" + type + ":'"};
    if (ignored) {
      out.warnings_.push_back(name + ":" + std::to_string(lineNo) +
                              ": warning: '" + type + ":" + pattern +
                              "' ignored: " + ignored);
      continue;
    }
    out.rules_.push_back({*kind, pattern, name, lineNo, top});
  }
  if (in.bad())
    return Error{"cannot read suppressions file '" + name + "'"};
  return out;
}

Expected<Suppressions> Suppressions::load(const std::string &path) {
  auto opened = openInput(path, "suppressions file", std::ios::in);
  if (!opened)
    return opened.error();
  std::ifstream &in = *opened;
  return parse(in, path);
}

std::optional<size_t> Suppressions::match(const Finding &f) const {
  for (size_t i = 0; i < rules_.size(); ++i) {
    const Suppression &r = rules_[i];
    if (r.kind != f.kind)
      continue;
    if (f.kind == FindingKind::Property) {
      if (templateMatch(r.pattern, f.object))
        return i;
      continue;
    }
    for (const Site &s : f.sites)
      if (templateMatch(r.pattern, s.function) ||
          templateMatch(r.pattern, s.file) ||
          (!r.topFrameOnly && templateMatch(r.pattern, s.object)))
        return i;
  }
  return std::nullopt;
}

size_t removeSuppressed(const Suppressions &s, const trace::Trace &t,
                        solver::RaceResult &races,
                        solver::DeadlockResult *deadlocks) {
  // A rule matches a finding's kind, object and sites, never its witness:
  // the findings are matched without theirs (resolving every step of
  // 3,590 witnesses of 50,000 steps cost more than the analysis).
  size_t removed = 0;
  std::vector<solver::RaceFinding> keptRaces;
  for (auto &r : races.races) {
    if (s.match(raceFinding(t, r.first, r.second, {})))
      ++removed;
    else
      keptRaces.push_back(std::move(r));
  }
  races.races = std::move(keptRaces);
  if (deadlocks) {
    std::vector<solver::DeadlockFinding> kept;
    for (auto &d : deadlocks->deadlocks) {
      solver::DeadlockFinding sites;
      sites.kind = d.kind;
      sites.blocked = d.blocked;
      if (s.match(deadlockFinding(t, sites)))
        ++removed;
      else
        kept.push_back(std::move(d));
    }
    deadlocks->deadlocks = std::move(kept);
  }
  return removed;
}

} // namespace racepredict::report
