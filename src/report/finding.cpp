//===- report/finding.cpp - Findings resolved to sites and JSON -----------===//
#include "racepredict/report/finding.h"

#include "racepredict/support/utf8.h"

#include "racepredict/report/names.h"
#include "racepredict/report/report.h"
#include "racepredict/report/witness_condense.h"

#include <set>

namespace racepredict::report {

using json = nlohmann::ordered_json;

const char *findingKindName(FindingKind k) {
  switch (k) {
  case FindingKind::Race:
    return "race";
  case FindingKind::Deadlock:
    return "deadlock";
  case FindingKind::Property:
    return "property";
  }
  RACEPREDICT_UNREACHABLE("finding kind");
}

std::optional<FindingKind> findingKindFromName(const std::string &name) {
  for (FindingKind k :
       {FindingKind::Race, FindingKind::Deadlock, FindingKind::Property})
    if (name == findingKindName(k))
      return k;
  return std::nullopt;
}

std::string Site::loc() const {
  if (file.empty() || line == 0)
    return "";
  std::string s = file + ":" + std::to_string(line);
  if (column)
    s += ":" + std::to_string(column);
  return s;
}

namespace {

Site siteOf(const trace::Trace &t, trace::EventId e) {
  const trace::Event &ev = t.events[e];
  const trace::SourceLoc &src = t.sources[ev.src];
  Site s;
  s.event = e;
  s.thread = t.threadName(ev.thread);
  s.op = trace::opName(ev.kind);
  s.object = t.objName(ev);
  s.file = src.file;
  s.line = src.line;
  s.column = src.column;
  s.function = functionName(src.function);
  s.text = describeEvent(t, e);
  return s;
}

std::string where(const Site &s) {
  std::string w =
      s.loc().empty() ? "event " + std::to_string(s.event) : s.loc();
  if (!s.function.empty())
    w += " in " + s.function;
  return w;
}

/// The witness steps of `events`' finding, essential and important as the
/// condensed witness marks them.
std::vector<WitnessStep>
witnessSteps(const trace::Trace &t, const std::vector<trace::EventId> &w,
             const std::vector<trace::EventId> &events) {
  std::vector<bool> essential = essentialSteps(t, w, events);
  std::vector<StepRole> roles = witnessRoles(t, w, essential);
  std::vector<WitnessStep> out;
  for (size_t i = 0; i < w.size(); ++i)
    out.push_back(
        {siteOf(t, w[i]), roles[i] == StepRole::Essential,
         roles[i] != StepRole::Essential && roles[i] != StepRole::Hidden});
  return out;
}

} // namespace

Finding raceFinding(const trace::Trace &t, trace::EventId first,
                    trace::EventId second,
                    const std::vector<trace::EventId> &witness) {
  Finding f;
  f.kind = FindingKind::Race;
  f.object = raceLocation(t, first, second);
  f.sites = {siteOf(t, first), siteOf(t, second)};
  f.witness = witnessSteps(t, witness, {first, second});
  const Site &a = f.sites[0], &b = f.sites[1];
  f.message = "Data race on " + f.object + ": " + b.op + " by thread " +
              b.thread + " at " + where(b) + " races with " + a.op +
              " by thread " + a.thread + " at " + where(a) + ".";
  return f;
}

Finding deadlockFinding(const trace::Trace &t, const std::string &kind,
                        const std::vector<trace::EventId> &blocked,
                        const std::vector<std::string> &reasons,
                        const std::vector<trace::EventId> &held,
                        const std::vector<trace::EventId> &witness) {
  RACEPREDICT_ASSERT(blocked.size() == reasons.size() &&
                         blocked.size() == held.size(),
                     "one reason and one held lock (or none) a thread");
  Finding f;
  f.kind = FindingKind::Deadlock;
  f.subkind = kind;
  f.notes = reasons;
  f.message = "Deadlock (" + kind + ") of " + std::to_string(blocked.size()) +
              (blocked.size() == 1 ? " thread: " : " threads: ");
  std::set<std::string> objects;
  for (size_t i = 0; i < blocked.size(); ++i) {
    Site s = siteOf(t, blocked[i]);
    if (!s.object.empty())
      objects.insert(s.object);
    f.message += (i ? "; at " : "at ") + where(s) + ", " + reasons[i];
    f.sites.push_back(std::move(s));
  }
  f.message += ".";
  for (size_t i = 0; i < blocked.size(); ++i)
    f.sites.push_back(
        siteOf(t, held[i] != trace::kNone ? held[i] : blocked[i]));
  for (const auto &o : objects)
    f.object += (f.object.empty() ? "" : ", ") + o;
  // The blocked requests close the schedule (they never complete).
  std::vector<trace::EventId> steps = witness;
  steps.insert(steps.end(), blocked.begin(), blocked.end());
  f.witness = witnessSteps(t, steps, blocked);
  return f;
}

Finding deadlockFinding(const trace::Trace &t,
                        const solver::DeadlockFinding &d) {
  std::vector<trace::EventId> blocked, held;
  std::vector<std::string> reasons;
  for (const auto &b : d.blocked) {
    blocked.push_back(b.event);
    reasons.push_back(describeBlock(t, b, d.blocked));
    held.push_back(b.kind == analysis::BlockKind::Lock ? b.since
                                                       : trace::kNone);
  }
  return deadlockFinding(t, d.kind, blocked, reasons, held, d.witness);
}

Finding propertyFinding(const trace::Trace &t, const std::string &name,
                        const std::vector<trace::EventId> &events,
                        const std::vector<trace::EventId> &witness) {
  Finding f;
  f.kind = FindingKind::Property;
  f.object = name;
  for (trace::EventId e : events)
    f.sites.push_back(siteOf(t, e));
  f.witness = witnessSteps(t, witness, events);
  f.message = "Property " + name + " violated:";
  for (const Site &s : f.sites)
    f.message += " " + s.op + " " + s.object + " by thread " + s.thread +
                 " at " + where(s) + ";";
  f.message.back() = '.';
  return f;
}

void forEachFinding(const trace::Trace &t, const solver::RaceResult &races,
                    const solver::DeadlockResult *deadlocks,
                    const std::function<void(Finding &&)> &use) {
  for (const auto &r : races.races)
    use(raceFinding(t, r.first, r.second, r.schedule.events()));
  if (deadlocks)
    for (const auto &d : deadlocks->deadlocks)
      use(deadlockFinding(t, d));
}

std::vector<Finding> findingsOf(const trace::Trace &t,
                                const solver::RaceResult &races,
                                const solver::DeadlockResult *deadlocks,
                                const analysis::TraceIndex &) {
  std::vector<Finding> out;
  forEachFinding(t, races, deadlocks,
                 [&](Finding &&f) { out.push_back(std::move(f)); });
  return out;
}

json siteJson(const Site &s) {
  json j{{"event", s.event},
         {"thread", s.thread},
         {"op", s.op},
         {"object", s.object},
         {"loc", s.loc().empty() ? "<unknown>" : s.loc()}};
  if (!s.file.empty()) {
    j["file"] = s.file;
    j["line"] = s.line;
    if (s.column)
      j["column"] = s.column;
  }
  if (!s.function.empty())
    j["function"] = s.function;
  j["text"] = s.text;
  return j;
}

json findingJson(const Finding &f) {
  json sites = json::array(), witness = json::array();
  for (const auto &s : f.sites)
    sites.push_back(siteJson(s));
  for (const auto &w : f.witness) {
    json j = siteJson(w.site);
    if (w.essential)
      j["essential"] = true;
    if (w.important)
      j["important"] = true;
    witness.push_back(std::move(j));
  }
  json j{{"kind", findingKindName(f.kind)},
         {"object", f.object},
         {"status", f.status},
         {"message", f.message},
         {"sites", sites},
         {"witness", witness}};
  if (!f.subkind.empty())
    j["subkind"] = f.subkind;
  if (!f.notes.empty())
    j["notes"] = f.notes;
  return j;
}

namespace {

template <typename T>
bool getField(const nlohmann::json &j, const char *key, T &out, bool required,
              std::string &err) {
  auto it = j.find(key);
  if (it == j.end()) {
    if (required)
      err = std::string("missing field '") + key + "'";
    return !required;
  }
  try {
    out = it->get<T>();
    // Names are bytes: JSON spells a byte that is not UTF-8 `\xHH`
    // (support/utf8.h); the finding holds the bytes again.
    if constexpr (std::is_same_v<T, std::string>)
      out = unescapeNonUtf8(out);
    return true;
  } catch (const nlohmann::json::exception &) {
    err = std::string("field '") + key + "' has the wrong type";
    return false;
  }
}

} // namespace

Expected<Site> siteFromJson(const nlohmann::json &j) {
  if (!j.is_object())
    return Error{"a site is not an object"};
  Site s;
  std::string err;
  if (!getField(j, "event", s.event, true, err) ||
      !getField(j, "thread", s.thread, true, err) ||
      !getField(j, "op", s.op, true, err) ||
      !getField(j, "object", s.object, false, err) ||
      !getField(j, "file", s.file, false, err) ||
      !getField(j, "line", s.line, false, err) ||
      !getField(j, "column", s.column, false, err) ||
      !getField(j, "function", s.function, false, err) ||
      !getField(j, "text", s.text, false, err))
    return Error{err};
  return s;
}

Expected<Finding> findingFromJson(const nlohmann::json &j) {
  if (!j.is_object())
    return Error{"a finding is not an object"};
  Finding f;
  std::string kind, err;
  if (!getField(j, "kind", kind, true, err) ||
      !getField(j, "object", f.object, false, err) ||
      !getField(j, "status", f.status, false, err) ||
      !getField(j, "message", f.message, false, err) ||
      !getField(j, "subkind", f.subkind, false, err) ||
      !getField(j, "notes", f.notes, false, err))
    return Error{err};
  auto k = findingKindFromName(kind);
  if (!k)
    return Error{"unknown finding kind '" + kind + "'"};
  f.kind = *k;
  auto sites = j.find("sites");
  if (sites == j.end() || !sites->is_array() || sites->empty())
    return Error{"missing field 'sites'"};
  for (const auto &s : *sites) {
    auto site = siteFromJson(s);
    if (!site)
      return Error{"sites: " + site.error().message};
    f.sites.push_back(std::move(*site));
  }
  auto witness = j.find("witness");
  if (witness != j.end()) {
    if (!witness->is_array())
      return Error{"field 'witness' has the wrong type"};
    for (const auto &s : *witness) {
      auto site = siteFromJson(s);
      if (!site)
        return Error{"witness: " + site.error().message};
      f.witness.push_back({std::move(*site), s.value("essential", false),
                           s.value("important", false)});
    }
  }
  return f;
}

} // namespace racepredict::report
