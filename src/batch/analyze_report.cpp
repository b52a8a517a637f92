//===- batch/analyze_report.cpp - DESIGN.md JSON report → findings --------===//
#include "racepredict/batch/analyze_report.h"

namespace racepredict::batch {

namespace {

using json = nlohmann::json;

/// An event index given as a number or as an event object {"event": N}.
bool eventIndex(const json &j, const trace::Trace &t, trace::EventId &out) {
  const json &v = j.is_object() && j.contains("event") ? j["event"] : j;
  if (!v.is_number_unsigned() || v.get<uint64_t>() >= t.events.size())
    return false;
  out = static_cast<trace::EventId>(v.get<uint64_t>());
  return true;
}

bool eventList(const json &j, const trace::Trace &t,
               std::vector<trace::EventId> &out) {
  if (!j.is_array())
    return false;
  for (const auto &e : j) {
    trace::EventId id;
    if (!eventIndex(e, t, id))
      return false;
    out.push_back(id);
  }
  return true;
}

/// The replay verdicts `racepredict run` writes (docs/replay.md).
bool isVerdict(const std::string &v) {
  return v == "confirmed" || v == "diverged" || v == "not-reproduced";
}

} // namespace

Expected<std::vector<report::Finding>>
findingsFromReport(const json &report, const trace::Trace &t,
                   std::vector<nlohmann::json> *details) {
  std::vector<report::Finding> out;
  std::string replayError;
  // The replay verdict becomes the finding's status; its detail is kept.
  auto setStatus = [&](report::Finding &f, const json &entry) {
    nlohmann::json detail;
    if (entry.contains("replay")) {
      const json &v = entry["replay"];
      if (!v.is_string() || !isVerdict(v.get<std::string>()))
        replayError = "replay is not confirmed, diverged or not-reproduced";
      else
        f.status = v.get<std::string>();
      if (entry.contains("replay_detail") && entry["replay_detail"].is_object())
        detail = entry["replay_detail"];
    }
    if (details)
      details->push_back(std::move(detail));
  };
  auto bad = [](const std::string &where, size_t i, const char *what) {
    return Error{"report: " + where + "[" + std::to_string(i) + "]: " + what};
  };
  if (!report.is_object())
    return Error{"report: not a JSON object"};
  const json &races = report.contains("races") ? report["races"] : json();
  for (size_t i = 0; races.is_array() && i < races.size(); ++i) {
    const json &r = races[i];
    trace::EventId a, b;
    std::vector<trace::EventId> w;
    if (!r.is_object() || !r.contains("first") || !r.contains("second") ||
        !eventIndex(r["first"], t, a) || !eventIndex(r["second"], t, b))
      return bad("races", i, "first/second is not an event of the trace");
    if (!eventList(r.value("witness", json::array()), t, w))
      return bad("races", i, "witness is not a list of events of the trace");
    out.push_back(report::raceFinding(t, a, b, w));
    setStatus(out.back(), r);
    if (!replayError.empty())
      return bad("races", i, replayError.c_str());
  }
  const json &dls = report.contains("deadlocks") ? report["deadlocks"] : json();
  for (size_t i = 0; dls.is_array() && i < dls.size(); ++i) {
    const json &d = dls[i];
    std::vector<trace::EventId> blocked, held, w;
    std::vector<std::string> reasons;
    if (!d.is_object() || !d.contains("blocked") || !d["blocked"].is_array() ||
        d["blocked"].empty())
      return bad("deadlocks", i, "no blocked threads");
    for (const auto &b : d["blocked"]) {
      trace::EventId e;
      if (!eventIndex(b, t, e) || !b.contains("reason") ||
          !b["reason"].is_string())
        return bad("deadlocks", i, "a blocked entry lacks event/reason");
      blocked.push_back(e);
      reasons.push_back(b["reason"].get<std::string>());
      const json on = b.value("blocked_on", json::object());
      trace::EventId h = trace::kNone;
      if (on.is_object() && on.value("kind", std::string()) == "lock" &&
          on.contains("held_since") && !eventIndex(on["held_since"], t, h))
        return bad("deadlocks", i, "held_since is not an event");
      held.push_back(h);
    }
    if (!eventList(d.value("witness", json::array()), t, w))
      return bad("deadlocks", i, "witness is not a list of events");
    std::string kind = d.value("kind", std::string("deadlock"));
    out.push_back(report::deadlockFinding(t, kind, blocked, reasons, held, w));
    setStatus(out.back(), d);
    if (!replayError.empty())
      return bad("deadlocks", i, replayError.c_str());
  }
  const json &vs =
      report.contains("violations") ? report["violations"] : json();
  for (size_t i = 0; vs.is_array() && i < vs.size(); ++i) {
    const json &v = vs[i];
    std::vector<trace::EventId> events, w;
    if (!v.is_object() || !v.contains("property") ||
        !eventList(v.value("events", json()), t, events) || events.empty())
      return bad("violations", i, "needs a property and its events");
    if (!eventList(v.value("witness", json::array()), t, w))
      return bad("violations", i, "witness is not a list of events");
    std::string name = v["property"].is_string()
                           ? v["property"].get<std::string>()
                           : v["property"].dump();
    out.push_back(report::propertyFinding(t, name, events, w));
    setStatus(out.back(), v);
    if (!replayError.empty())
      return bad("violations", i, replayError.c_str());
  }
  return out;
}

} // namespace racepredict::batch
