//===- report/sarif_report.cpp - SARIF 2.1.0 for code-scanning UIs --------===//
//
// One result per finding; the witness is a codeFlow with one threadFlow per
// thread sharing one executionOrder, the racing accesses (or the blocked
// events) marked `essential` — the shape GitHub code scanning renders
// (PLATFORM_NOTES "Reports and CI formats"). Fingerprints hash the finding's
// kind and source locations, so a baseline survives unrelated code motion.
//
#include "racepredict/report/report.h"

#include <map>
#include <set>

namespace racepredict::report {

using json = nlohmann::ordered_json;

namespace {

const char *kRaceRule = "data-race";
const char *kDeadlockRule = "lock-order-deadlock";
const char *kGeneralDeadlockRule = "deadlock";

std::string fnv1a(const std::string &s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string uriOf(const std::string &file) {
  return !file.empty() && file[0] == '/' ? "file://" + file : file;
}

/// A SARIF location for an event: physical when it has a source location,
/// else logical (the variable or lock name), as text traces may have none.
json locationOf(const trace::Trace &t, trace::EventId e) {
  const trace::Event &ev = t.events[e];
  const trace::SourceLoc &src = t.sources[ev.src];
  json loc = json::object();
  if (!src.file.empty()) {
    json region{{"startLine", std::max<uint32_t>(1, src.line)}};
    if (src.column)
      region["startColumn"] = src.column;
    loc["physicalLocation"] = {{"artifactLocation", {{"uri", uriOf(src.file)}}},
                               {"region", region}};
  }
  json logical = json::array();
  if (!src.function.empty())
    logical.push_back({{"name", src.function}, {"kind", "function"}});
  std::string obj = t.objName(ev);
  if (!obj.empty())
    logical.push_back(
        {{"name", obj},
         {"kind", trace::isAccess(ev.kind) ? "variable" : "resource"}});
  if (!logical.empty())
    loc["logicalLocations"] = logical;
  return loc;
}

json eventLocation(const trace::Trace &t, trace::EventId e,
                   const std::string &message) {
  json loc = locationOf(t, e);
  loc["message"] = {{"text", message}};
  return loc;
}

/// The witness as threadFlows: one per thread, steps in global order.
json codeFlow(const trace::Trace &t, const std::vector<trace::EventId> &w,
              const std::set<trace::EventId> &essential,
              const std::string &message) {
  std::map<trace::ThreadId, json> flows;
  for (size_t i = 0; i < w.size(); ++i) {
    trace::ThreadId th = t.events[w[i]].thread;
    auto &f = flows[th];
    if (f.is_null())
      f = {{"id", t.threadName(th)}, {"locations", json::array()}};
    f["locations"].push_back(
        {{"location", eventLocation(t, w[i], describeEvent(t, w[i]))},
         {"executionOrder", i + 1},
         {"importance", essential.count(w[i]) ? "essential" : "unimportant"}});
  }
  json tf = json::array();
  for (auto &[th, f] : flows)
    tf.push_back(std::move(f));
  return {{"message", {{"text", message}}}, {"threadFlows", tf}};
}

std::string srcKey(const trace::Trace &t, trace::EventId e) {
  const trace::SourceLoc &src = t.sources[t.events[e].src];
  return src.file.empty() ? t.objName(t.events[e]) + "#" + std::to_string(e)
                          : src.file + ":" + std::to_string(src.line);
}

json rule(const char *id, const char *name, const char *shortText,
          const char *fullText) {
  return {{"id", id},
          {"name", name},
          {"shortDescription", {{"text", shortText}}},
          {"fullDescription", {{"text", fullText}}},
          {"help",
           {{"text", std::string(fullText) +
                         " The result's code flow is a schedule that "
                         "exhibits it; `racepredict replay` reproduces "
                         "it in the program."}}},
          {"defaultConfiguration", {{"level", "error"}}}};
}

} // namespace

json sarifReport(const trace::Trace &t, const solver::RaceResult &races,
                 const solver::DeadlockResult *deadlocks,
                 const analysis::TraceIndex &, const ReportContext &ctx) {
  json results = json::array();
  for (const auto &f : races.races) {
    std::string var = t.objName(t.events[f.first]);
    std::string msg = "Data race on " + var +
                      " (predicted): " + describeEvent(t, f.second) +
                      " races with " + describeEvent(t, f.first) + ".";
    std::string ka = srcKey(t, f.first), kb = srcKey(t, f.second);
    json r{
        {"ruleId", kRaceRule},
        {"ruleIndex", 0},
        {"level", "error"},
        {"message", {{"text", msg}}},
        {"locations", json::array({locationOf(t, f.second)})},
        {"relatedLocations",
         json::array({eventLocation(t, f.first, "the other access")})},
        {"partialFingerprints",
         {{"racepredictSignature/v1",
           fnv1a(std::string(kRaceRule) + "|" + std::min(ka, kb) + "|" +
                 std::max(ka, kb))}}},
        {"codeFlows", json::array({codeFlow(t, f.witness, {f.first, f.second},
                                            "A schedule that makes the two "
                                            "accesses adjacent")})},
        {"properties", {{"first_event", f.first}, {"second_event", f.second}}}};
    r["relatedLocations"][0]["id"] = 1;
    results.push_back(std::move(r));
  }
  if (deadlocks)
    for (const auto &d : deadlocks->deadlocks) {
      bool lockOrder = d.kind == "lock-order";
      const char *ruleId = lockOrder ? kDeadlockRule : kGeneralDeadlockRule;
      std::string msg = "Deadlock (predicted, " + d.kind + "):";
      std::vector<std::string> keys;
      std::set<trace::EventId> essential;
      json related = json::array();
      std::vector<trace::EventId> flow = d.witness;
      for (const auto &b : d.blocked) {
        std::string why = describeBlock(t, b, d.blocked);
        msg += " " + why + ";";
        keys.push_back(srcKey(t, b.event));
        essential.insert(b.event);
        flow.push_back(b.event);
        json rl = eventLocation(t, b.event, why);
        rl["id"] = related.size() + 1;
        related.push_back(rl);
      }
      std::sort(keys.begin(), keys.end());
      std::string sig = ruleId;
      for (const auto &k : keys)
        sig += "|" + k;
      results.push_back(
          {{"ruleId", ruleId},
           {"ruleIndex", lockOrder ? 1 : 2},
           {"level", "error"},
           {"message", {{"text", msg}}},
           {"locations", json::array({locationOf(t, d.blocked[0].event)})},
           {"relatedLocations", related},
           {"partialFingerprints", {{"racepredictSignature/v1", fnv1a(sig)}}},
           {"codeFlows",
            json::array({codeFlow(t, flow, essential,
                                  "A schedule after which every blocked "
                                  "thread waits for good (the last steps "
                                  "never complete)")})},
           {"properties", {{"deadlock_kind", d.kind}}}});
    }
  json driver{
      {"name", "racepredict"},
      {"version", ctx.version},
      {"rules",
       json::array(
           {rule(kRaceRule, "DataRace", "Predicted data race",
                 "Two conflicting accesses that some feasible reordering of "
                 "the recorded execution (maximal causal model) makes "
                 "adjacent."),
            rule(kDeadlockRule, "LockOrderDeadlock",
                 "Predicted lock-order deadlock",
                 "Threads that, in some feasible reordering of the recorded "
                 "execution, each hold a lock the next one waits for."),
            rule(kGeneralDeadlockRule, "Deadlock", "Predicted deadlock",
                 "Threads that, in some feasible reordering of the recorded "
                 "execution, wait for good: for a join, a semaphore post, a "
                 "barrier arrival or a notify that can no longer come, or "
                 "for a lock held by one of them or by a finished "
                 "thread.")})}};
  json invocation{
      {"executionSuccessful",
       races.unknowns.empty() && (!deadlocks || deadlocks->unknowns.empty())}};
  return {
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs", json::array({{{"tool", {{"driver", driver}}},
                             {"invocations", json::array({invocation})},
                             {"results", results},
                             {"properties", {{"trace", ctx.tracePath}}}}})}};
}

} // namespace racepredict::report
