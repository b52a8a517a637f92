//===- report/html_model.cpp - The data the HTML witness view draws -------===//
#include "racepredict/report/html_report.h"

#include "racepredict/report/names.h"
#include "racepredict/report/source_text.h"
#include "racepredict/report/witness_condense.h"

#include <unordered_map>

namespace racepredict::report {

using json = nlohmann::ordered_json;
using trace::Event;
using trace::EventId;
using trace::EventKind;

namespace {

/// Folds of a witness longer than this are not expandable in the page:
/// the steps would make the file too big to open (the JSON report and the
/// witness files have them all).
constexpr size_t kMaxPageSteps = 20000;

std::string verdictOf(const std::vector<ReplayInfo> &replays, size_t i) {
  return i < replays.size() ? replays[i].verdict : "predicted";
}

std::string accessNote(const trace::Trace &t, EventId e) {
  const Event &ev = t.events[e];
  std::string s = trace::opName(ev.kind);
  s = (ev.kind == EventKind::Write  ? "Write"
       : ev.kind == EventKind::Read ? "Read"
                                    : s);
  if (ev.size)
    s += " of size " + std::to_string(unsigned(ev.size));
  return s + " at " + t.objName(ev) + " by thread " + t.threadName(ev.thread);
}

/// The synchronisation edges into step i from an earlier step of another
/// thread: a lock from its last release, a thread's begin from its fork, a
/// join from the joined thread's end, a woken wait from its notify, a
/// semaphore wait from the last post.
struct EdgeFinder {
  const trace::Trace &t;
  const std::vector<EventId> &steps;
  std::unordered_map<uint64_t, size_t> lastRelease, lastPost;
  std::unordered_map<trace::ThreadId, size_t> forkOf, endOf;
  std::unordered_map<EventId, size_t> stepOf;

  static uint64_t key(trace::NameSpace ns, uint32_t obj) {
    return (uint64_t(ns) << 32) | obj;
  }

  json edges() {
    json out = json::array();
    for (size_t i = 0; i < steps.size(); ++i) {
      const Event &e = t.events[steps[i]];
      auto from = [&](auto &map, auto k, const char *what) {
        auto it = map.find(k);
        if (it != map.end() && t.events[steps[it->second]].thread != e.thread)
          out.push_back({it->second, i, what});
      };
      switch (e.kind) {
      case EventKind::Acquire:
      case EventKind::RAcquire:
        from(lastRelease, key(trace::NameSpace::Lock, e.obj), "lock");
        break;
      case EventKind::Wait: {
        auto n = e.extra != trace::kNone ? stepOf.find(e.extra) : stepOf.end();
        if (n != stepOf.end())
          out.push_back({n->second, i, "notify"});
        break;
      }
      case EventKind::Begin:
        from(forkOf, e.thread, "fork");
        break;
      case EventKind::Join:
        from(endOf, e.obj, "join");
        break;
      case EventKind::SemWait:
        from(lastPost, key(trace::NameSpace::Sem, e.obj), "post");
        break;
      default:
        break;
      }
      switch (e.kind) {
      case EventKind::Release:
        lastRelease[key(trace::NameSpace::Lock, e.obj)] = i;
        break;
      case EventKind::Wait:
        lastRelease[key(trace::NameSpace::Lock, e.aux)] = i;
        break;
      case EventKind::Fork:
        forkOf[e.obj] = i;
        break;
      case EventKind::End:
        endOf[e.thread] = i;
        break;
      case EventKind::SemPost:
        lastPost[key(trace::NameSpace::Sem, e.obj)] = i;
        break;
      default:
        break;
      }
      stepOf[steps[i]] = i;
    }
    return out;
  }
};

/// A deadlock's witness, then its blocked events: the page's steps.
analysis::WitnessSchedule
scheduleOfEvents(const std::vector<EventId> &witness,
                 const std::vector<EventId> &blocked) {
  std::vector<analysis::Step> steps;
  for (const auto *part : {&witness, &blocked})
    for (EventId e : *part)
      steps.push_back({e, false});
  return analysis::WitnessSchedule(std::move(steps));
}

json findingModel(const trace::Trace &t, const HtmlFinding &f,
                  SourceText &src) {
  const std::vector<EventId> w = f.witness.events();
  std::vector<bool> essential = essentialSteps(t, w, f.events);
  std::vector<StepRole> roles = witnessRoles(t, w, essential);
  std::vector<WitnessLine> lines = condenseWitness(t, w, essential);
  bool all = w.size() <= kMaxPageSteps;
  std::vector<bool> included(w.size(), all);
  for (const auto &l : lines)
    if (!l.folded)
      included[l.step] = true;
  // Lanes: the threads in the order the witness first runs them.
  std::unordered_map<trace::ThreadId, size_t> lane;
  json threads = json::array();
  for (EventId e : w)
    if (lane.try_emplace(t.events[e].thread, lane.size()).second)
      threads.push_back(t.threadName(t.events[e].thread));
  // Steps name their source location by index into `locs` (a loop's
  // steps share a few lines: the page stays small).
  json steps = json::array(), locs = json::array();
  std::unordered_map<trace::SrcId, size_t> locIndex;
  for (size_t i = 0; i < w.size(); ++i) {
    if (!included[i])
      continue;
    const Event &ev = t.events[w[i]];
    std::string text = describeEvent(t, w[i]);
    // The lane names the thread; the location has its own field.
    size_t from = text.find(' ') + 1, at = text.find("  @ ");
    json s{{"i", i},
           {"e", w[i]},
           {"lane", lane[ev.thread]},
           {"op", text.substr(from, at == std::string::npos ? at : at - from)},
           {"role", stepRoleName(roles[i])}};
    const trace::SourceLoc &l = t.sources[ev.src];
    if (ev.src && (l.file.size() || l.function.size())) {
      auto [it, fresh] = locIndex.try_emplace(ev.src, locs.size());
      if (fresh) {
        json loc{{"loc", locationText(l)}, {"fn", functionName(l.function)}};
        std::string code = src.line(l, 160);
        if (!code.empty())
          loc["src"] = code;
        locs.push_back(std::move(loc));
      }
      s["l"] = it->second;
    }
    steps.push_back(std::move(s));
  }
  json rows = json::array();
  for (const auto &l : lines) {
    if (!l.folded) {
      rows.push_back({{"step", l.step}});
      continue;
    }
    rows.push_back({{"fold", {l.fold.firstStep, l.fold.lastStep}},
                    {"lane", lane[l.fold.thread]},
                    {"text", foldText(t, l.fold)},
                    {"expandable", all}});
  }
  json events = json::array();
  for (size_t k = 0; k < f.events.size(); ++k) {
    json stack = json::array();
    for (const auto &fr : eventStack(t, f.events[k]))
      stack.push_back(fr.function + " " + fr.location);
    events.push_back({{"event", f.events[k]},
                      {"note", k < f.eventNotes.size() ? f.eventNotes[k] : ""},
                      {"stack", stack}});
  }
  // The racing pair itself: the edge the page is about.
  EdgeFinder ef{t, w, {}, {}, {}, {}, {}};
  json edges = ef.edges();
  if (f.kind == "race" && w.size() >= 2)
    edges.push_back({w.size() - 2, w.size() - 1, "race"});
  for (auto [held, blocked] : f.waitsFor) {
    auto hi = ef.stepOf.find(held), bi = ef.stepOf.find(blocked);
    if (hi != ef.stepOf.end() && bi != ef.stepOf.end())
      edges.push_back({hi->second, bi->second, "waits for"});
  }
  return {{"kind", f.kind},       {"title", f.title}, {"status", f.status},
          {"summary", f.summary}, {"events", events}, {"threads", threads},
          {"length", w.size()},   {"steps", steps},   {"locs", locs},
          {"rows", rows},         {"edges", edges}};
}

} // namespace

std::vector<HtmlFinding>
htmlFindings(const trace::Trace &t, const solver::RaceResult &races,
             const solver::DeadlockResult *deadlocks,
             const std::vector<ReplayInfo> &raceReplays,
             const std::vector<ReplayInfo> &deadlockReplays) {
  std::vector<HtmlFinding> out;
  for (size_t i = 0; i < races.races.size(); ++i) {
    const auto &r = races.races[i];
    HtmlFinding f;
    f.kind = "race";
    f.title = "data race on " + t.objName(t.events[r.first]);
    f.status = verdictOf(raceReplays, i);
    StackFrame a = summaryFrame(t, r.first), b = summaryFrame(t, r.second);
    f.summary = baseName(b.location) + " in " + b.function + " / " +
                baseName(a.location) + " in " + a.function;
    f.events = {r.second, r.first};
    f.eventNotes = {accessNote(t, r.second),
                    "Previous " + accessNote(t, r.first)};
    f.witness = r.schedule;
    out.push_back(std::move(f));
  }
  if (deadlocks)
    for (size_t i = 0; i < deadlocks->deadlocks.size(); ++i) {
      const auto &d = deadlocks->deadlocks[i];
      HtmlFinding f;
      f.kind = "deadlock";
      f.title = d.kind + " deadlock of " + std::to_string(d.blocked.size()) +
                " threads";
      f.status = verdictOf(deadlockReplays, i);
      for (const auto &b : d.blocked) {
        f.events.push_back(b.event);
        f.eventNotes.push_back(describeBlock(t, b, d.blocked));
        f.summary += (f.summary.empty() ? "" : " / ") +
                     baseName(summaryFrame(t, b.event).location);
        if (b.kind == analysis::BlockKind::Lock && b.since != trace::kNone)
          f.waitsFor.push_back({b.since, b.event});
      }
      // The blocked requests close the schedule: the cycle is drawn there.
      f.witness = scheduleOfEvents(d.witness, f.events);
      out.push_back(std::move(f));
    }
  return out;
}

Expected<std::vector<HtmlFinding>>
htmlFindingsFromJson(const trace::Trace &t, const nlohmann::json &j) {
  std::vector<HtmlFinding> out;
  auto event = [&](const nlohmann::json &v, EventId &e) {
    if (!v.is_number_unsigned() || v.get<uint64_t>() >= t.events.size())
      return false;
    e = v.get<EventId>();
    return true;
  };
  auto witness = [&](const nlohmann::json &f, HtmlFinding &h) {
    auto w = f.find("witness");
    if (w == f.end() || !w->is_array())
      return false;
    for (const auto &x : *w) {
      EventId e;
      if (!event(x, e))
        return false;
      h.witness.push_back({e, false});
    }
    return true;
  };
  const nlohmann::json none = nlohmann::json::array();
  const nlohmann::json &races = j.contains("races") ? j["races"] : none;
  const nlohmann::json &dls = j.contains("deadlocks") ? j["deadlocks"] : none;
  if (!races.is_array() || !dls.is_array())
    return Error{"'races' and 'deadlocks' must be arrays"};
  solver::RaceResult r;
  std::vector<ReplayInfo> replays;
  for (size_t i = 0; i < races.size(); ++i) {
    const auto &f = races[i];
    solver::RaceFinding rf;
    HtmlFinding h;
    if (!f.is_object() || !f.contains("first") || !f.contains("second") ||
        !event(f["first"].value("event", nlohmann::json()), rf.first) ||
        !event(f["second"].value("event", nlohmann::json()), rf.second) ||
        !witness(f, h))
      return Error{"race " + std::to_string(i) +
                   ": its events are not events of the trace (is it the "
                   "report of this trace?)"};
    rf.schedule = h.witness;
    r.races.push_back(rf);
    ReplayInfo info;
    info.verdict = f.value("replay", "predicted");
    replays.push_back(info);
  }
  out = htmlFindings(t, r, nullptr, replays);
  for (size_t i = 0; i < dls.size(); ++i) {
    const auto &f = dls[i];
    HtmlFinding h;
    h.kind = "deadlock";
    bool ok = f.is_object() && witness(f, h) && f.contains("blocked") &&
              f["blocked"].is_array();
    for (const auto &b : ok ? f["blocked"] : none) {
      EventId e;
      ok = ok && b.is_object() && event(b.value("event", nlohmann::json()), e);
      if (!ok)
        break;
      h.events.push_back(e);
      h.eventNotes.push_back(b.value("reason", ""));
      h.summary += (h.summary.empty() ? "" : " / ") +
                   baseName(summaryFrame(t, e).location);
    }
    if (!ok)
      return Error{"deadlock " + std::to_string(i) +
                   ": its events are not events of the trace"};
    h.title = f.value("kind", "") + " deadlock of " +
              std::to_string(h.events.size()) + " threads";
    h.status = f.value("replay", "predicted");
    h.witness = scheduleOfEvents(h.witness.events(), h.events);
    out.push_back(std::move(h));
  }
  return out;
}

json htmlModel(const trace::Trace &t, const std::vector<HtmlFinding> &findings,
               const ReportContext &ctx) {
  SourceText src;
  json list = json::array();
  for (const auto &f : findings)
    list.push_back(findingModel(t, f, src));
  return {{"tool", "racepredict"},
          {"version", ctx.version},
          {"trace", ctx.tracePath},
          {"findings", list}};
}

namespace {

/// `j` as `dump(-1)` prints it inside the page's data element: a "</" would
/// end the element early (a source line may hold "</script>"), and "<\/" is
/// the same JSON. Each piece is a whole JSON value, so no "</" spans two.
void writeScriptJson(const json &j, std::ostream &out) {
  std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace);
  for (size_t p = 0; (p = s.find("</", p)) != std::string::npos; p += 3)
    s.replace(p, 2, "<\\/");
  out << s;
}

} // namespace

void writeHtmlModel(const trace::Trace &t,
                    const std::vector<HtmlFinding> &findings,
                    const ReportContext &ctx, std::ostream &out) {
  // The bytes of htmlModel(...).dump(-1) with "</" escaped, one finding's
  // model at a time: the model of thousands of long witnesses is many
  // times the page's size (app 30K --all-pairs: 6 GB for a 398 MB page).
  out << "{\"tool\":";
  writeScriptJson("racepredict", out);
  out << ",\"version\":";
  writeScriptJson(ctx.version, out);
  out << ",\"trace\":";
  writeScriptJson(ctx.tracePath, out);
  out << ",\"findings\":[";
  SourceText src;
  for (size_t i = 0; i < findings.size(); ++i) {
    if (i)
      out << ',';
    writeScriptJson(findingModel(t, findings[i], src), out);
  }
  out << "]}";
}

} // namespace racepredict::report
