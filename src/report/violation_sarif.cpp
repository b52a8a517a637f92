//===- report/violation_sarif.cpp - Property violations as SARIF results --===//
//
// Shaped like the race and deadlock results of sarif_report.cpp (one
// codeFlow, one threadFlow per thread, the pattern's steps `essential`),
// appended to the log sarifReport built (or written after them by
// writeSarifReport), under a rule of their own.
//
#include "racepredict/report/finding_sarif.h"
#include "racepredict/report/violation_report.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace racepredict::report {

using json = nlohmann::ordered_json;

namespace {

const char *kRule = "property-violation";

json physical(const trace::Trace &t, trace::EventId e, const std::string &msg) {
  const trace::SourceLoc &src = t.sources[t.events[e].src];
  json loc = json::object();
  if (!src.file.empty()) {
    json region{{"startLine", std::max<uint32_t>(1, src.line)}};
    if (src.column)
      region["startColumn"] = src.column;
    // The URI as every other SARIF result spells it (percent-encoded).
    loc["physicalLocation"] = {
        {"artifactLocation", artifactLocation(src.file, "")},
        {"region", region}};
  }
  json logical = json::array();
  if (!src.function.empty())
    logical.push_back({{"name", src.function}, {"kind", "function"}});
  std::string obj = t.objName(t.events[e]);
  if (!obj.empty())
    logical.push_back({{"name", obj}, {"kind", "resource"}});
  if (!logical.empty())
    loc["logicalLocations"] = logical;
  if (!msg.empty())
    loc["message"] = {{"text", msg}};
  return loc;
}

std::string fingerprint(const std::string &s) {
  uint64_t h = 1469598103934665603ull; // FNV-1a, as sarif_report.cpp
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

} // namespace

json violationSarifRule() {
  const char *text =
      "Events of a user-defined property (custom events from an "
      "instrumentation spec, or trace events) that some feasible reordering "
      "of the recorded execution puts in the forbidden order.";
  return {{"id", kRule},
          {"name", "PropertyViolation"},
          {"shortDescription", {{"text", "Predicted property violation"}}},
          {"fullDescription", {{"text", text}}},
          {"help",
           {{"text", std::string(text) +
                         " The result's code flow is a schedule that exhibits "
                         "it; `racepredict replay` reproduces it in the "
                         "program."}}},
          {"defaultConfiguration", {{"level", "error"}}}};
}

json violationSarifResult(const trace::Trace &t,
                          const solver::ViolationFinding &v,
                          const Properties &props, size_t ruleIndex) {
  const property::Property &p = props[v.property];
  const property::Pattern &pat = p.patterns[v.pattern];
  std::string msg = "Property '" + p.name + "' violated (" +
                    (v.observed ? "observed" : "predicted") +
                    "): " + pat.origin + ": " + property::toString(pat) + ".";
  std::string sig = std::string(kRule) + "|" + p.name + "|" + pat.origin;
  json related = json::array();
  for (size_t i = 0; i < v.events.size(); ++i) {
    const trace::SourceLoc &src = t.sources[t.events[v.events[i]].src];
    sig += "|" + (src.file.empty() ? std::to_string(v.events[i]) : src.str());
    json rl = physical(t, v.events[i],
                       "step " + std::to_string(i + 1) + ": " +
                           describeEvent(t, v.events[i]));
    rl["id"] = i + 1;
    related.push_back(rl);
  }
  std::map<trace::ThreadId, json> flows;
  for (size_t i = 0; i < v.witness.size(); ++i) {
    trace::EventId e = v.witness[i];
    trace::ThreadId th = t.events[e].thread;
    json &f = flows[th];
    if (f.is_null())
      f = {{"id", t.threadName(th)}, {"locations", json::array()}};
    bool step = std::count(v.events.begin(), v.events.end(), e) > 0;
    f["locations"].push_back(
        {{"location", physical(t, e, describeEvent(t, e))},
         {"executionOrder", i + 1},
         {"importance", step ? "essential" : "unimportant"}});
  }
  json threadFlows = json::array();
  for (auto &[th, f] : flows)
    threadFlows.push_back(std::move(f));
  return {
      {"ruleId", kRule},
      {"ruleIndex", ruleIndex},
      {"level", "error"},
      {"message", {{"text", msg}}},
      {"locations", json::array({physical(t, v.events.back(), "")})},
      {"relatedLocations", related},
      {"partialFingerprints", {{"racepredictSignature/v1", fingerprint(sig)}}},
      {"codeFlows",
       json::array({{{"message",
                      {{"text", "A schedule that ends with the pattern's "
                                "last step"}}},
                     {"threadFlows", threadFlows}}})},
      {"properties", {{"property", p.name}, {"events", v.events}}}};
}

void addViolationsToSarif(json &sarif, const trace::Trace &t,
                          const solver::PropertyResult &r,
                          const Properties &props) {
  json &run = sarif["runs"][0];
  json &rules = run["tool"]["driver"]["rules"];
  size_t ruleIndex = rules.size();
  rules.push_back(violationSarifRule());
  for (const auto &v : r.violations)
    run["results"].push_back(violationSarifResult(t, v, props, ruleIndex));
  if (!r.unknowns.empty())
    run["invocations"][0]["executionSuccessful"] = false;
}

} // namespace racepredict::report
