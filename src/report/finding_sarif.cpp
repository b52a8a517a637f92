//===- report/finding_sarif.cpp - SARIF 2.1.0 results with code flows -----===//
#include "racepredict/report/finding_sarif.h"
#include "racepredict/report/witness_condense.h"

#include "racepredict/report/signature.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>

namespace racepredict::report {

using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

namespace {

struct RuleText {
  const char *id, *name, *shortText, *fullText;
};

// Indexed by FindingKind.
const RuleText kRules[] = {
    {"data-race", "DataRace", "Predicted data race",
     "Two conflicting accesses that some feasible reordering of the recorded "
     "execution (maximal causal model) makes adjacent."},
    {"lock-order-deadlock", "LockOrderDeadlock",
     "Predicted lock-order deadlock",
     "Threads that, in some feasible reordering of the recorded execution, "
     "each hold a lock the next one waits for."},
    {"property-violation", "PropertyViolation",
     "Predicted ordering-property violation",
     "Events that, in some feasible reordering of the recorded execution, "
     "occur in an order the property forbids."},
    {"deadlock", "Deadlock", "Predicted deadlock",
     "Threads that, in some feasible reordering of the recorded execution, "
     "are blocked for good: on a join, a semaphore, a barrier, a condition "
     "variable or a lock held by a finished or blocked thread."},
};
constexpr int kGeneralDeadlockRule = 3;

/// Lock-order cycles keep their own rule; other deadlocks share one.
int ruleOf(const Finding &f) {
  if (f.kind == FindingKind::Deadlock && !f.subkind.empty() &&
      f.subkind != "lock-order")
    return kGeneralDeadlockRule;
  return static_cast<int>(f.kind);
}

json rule(const RuleText &r) {
  return {{"id", r.id},
          {"name", r.name},
          {"shortDescription", {{"text", r.shortText}}},
          {"fullDescription", {{"text", r.fullText}}},
          {"help",
           {{"text", std::string(r.fullText) +
                         " The result's code flow is a schedule that "
                         "exhibits it, one thread flow per thread; "
                         "`racepredict replay` reproduces it in the "
                         "program."}}},
          {"defaultConfiguration", {{"level", "error"}}}};
}

/// RFC 3986 percent-encoding of a path (keeps `/`).
std::string uriEscape(const std::string &path) {
  static const char *hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' ||
        c == '~')
      out += static_cast<char>(c);
    else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

json locationOf(const Site &s, const std::string &sourceRoot,
                const std::string &message) {
  json loc = json::object();
  if (!s.file.empty()) {
    json region{{"startLine", std::max<uint32_t>(1, s.line)}};
    if (s.column)
      region["startColumn"] = s.column;
    loc["physicalLocation"] = {
        {"artifactLocation", artifactLocation(s.file, sourceRoot)},
        {"region", region}};
  }
  json logical = json::array();
  if (!s.function.empty())
    logical.push_back({{"name", s.function}, {"kind", "function"}});
  if (!s.object.empty())
    logical.push_back({{"name", s.object},
                       {"kind", s.op == "rd" || s.op == "wr" || s.op == "ard" ||
                                        s.op == "awr" || s.op == "armw"
                                    ? "variable"
                                    : "resource"}});
  if (!logical.empty())
    loc["logicalLocations"] = logical;
  if (!message.empty())
    loc["message"] = {{"text", message}};
  return loc;
}

json codeFlow(const Finding &f, const std::string &sourceRoot) {
  // Every step, or (beyond GitHub's limit) the steps that matter with each
  // run of other steps folded into one location per thread.
  bool fold = f.witness.size() > kMaxSarifFlowSteps;
  std::map<std::string, json> flows; // by thread name, sorted
  auto add = [&](const WitnessStep &w, size_t order, const std::string &text,
                 const char *importance) {
    auto &flow = flows[w.site.thread];
    if (flow.is_null())
      flow = {{"id", w.site.thread}, {"locations", json::array()}};
    flow["locations"].push_back(
        {{"location", locationOf(w.site, sourceRoot, text)},
         {"executionOrder", order},
         {"importance", importance}});
  };
  size_t folded = 0;
  for (size_t i = 0; i < f.witness.size();) {
    const WitnessStep &w = f.witness[i];
    if (!fold || w.essential || w.important) {
      add(w, i + 1, w.site.text,
          w.essential   ? "essential"
          : w.important ? "important"
                        : "unimportant");
      ++i;
      continue;
    }
    // A run of unimportant steps: one location per thread, at the thread's
    // first step of the run, ordered by it.
    size_t j = i;
    std::map<std::string, std::pair<size_t, size_t>> first; // thread: (step, n)
    for (; j < f.witness.size() && !f.witness[j].essential &&
           !f.witness[j].important;
         ++j) {
      auto [it, fresh] =
          first.try_emplace(f.witness[j].site.thread, std::make_pair(j, 0));
      ++it->second.second;
    }
    for (const auto &[thread, at] : first)
      add(f.witness[at.first], at.first + 1,
          "… " + withThousands(at.second) + " steps of " + thread +
              " (witness steps " + std::to_string(i + 1) + "–" +
              std::to_string(j) + ") …",
          "unimportant");
    folded += j - i;
    i = j;
  }
  json tf = json::array();
  for (auto &[thread, flow] : flows) {
    // executionOrder ascends within a thread flow.
    auto &locs = flow["locations"];
    std::stable_sort(locs.begin(), locs.end(),
                     [](const json &x, const json &y) {
                       return x["executionOrder"] < y["executionOrder"];
                     });
    tf.push_back(std::move(flow));
  }
  std::string msg;
  switch (f.kind) {
  case FindingKind::Race:
    msg = "A schedule that makes the two accesses adjacent";
    break;
  case FindingKind::Deadlock:
    msg = "A schedule after which every thread of the cycle waits for the "
          "next one's lock (the last steps never complete)";
    break;
  case FindingKind::Property:
    msg = "A schedule that violates the property";
    break;
  }
  if (folded)
    msg += " (" + withThousands(folded) +
           " less important steps are folded into one location per thread "
           "and run; the JSON report lists every step)";
  return {{"message", {{"text", msg}}}, {"threadFlows", tf}};
}

} // namespace

json artifactLocation(const std::string &file, const std::string &sourceRoot) {
  fs::path p = fs::path(file).lexically_normal();
  if (p.is_absolute() && !sourceRoot.empty()) {
    fs::path rel =
        p.lexically_relative(fs::path(sourceRoot).lexically_normal());
    if (!rel.empty() && *rel.begin() != ".." && rel != ".")
      return {{"uri", uriEscape(rel.generic_string())},
              {"uriBaseId", "%SRCROOT%"}};
  }
  if (p.is_absolute())
    return {{"uri", "file://" + uriEscape(p.generic_string())}};
  return {{"uri", uriEscape(p.generic_string())}};
}

json sarifResult(const SarifFinding &sf, const SarifOptions &opts) {
  const Finding &f = *sf.finding;
  int ruleIndex = ruleOf(f);
  // Races: both accesses; deadlocks: the blocked requests (the first
  // half of the sites) with the held acquisitions as related locations.
  size_t primary =
      f.kind == FindingKind::Deadlock ? f.sites.size() / 2 : f.sites.size();
  json locations = json::array(), related = json::array();
  for (size_t i = 0; i < f.sites.size(); ++i) {
    const Site &s = f.sites[i];
    if (i < primary) {
      locations.push_back(locationOf(s, opts.sourceRoot, s.text));
    } else {
      size_t k = i - primary;
      std::string why = k < f.notes.size() ? f.notes[k] : "holds " + s.object;
      json rl = locationOf(s, opts.sourceRoot, why);
      rl["id"] = related.size() + 1;
      related.push_back(std::move(rl));
    }
  }
  std::string status = f.status == "predicted"
                           ? "predicted, not replay-confirmed"
                           : "replay: " + f.status;
  json r{{"ruleId", kRules[ruleIndex].id},
         {"ruleIndex", ruleIndex},
         {"level", "error"},
         {"message", {{"text", f.message + " (" + status + ")"}}},
         {"locations", locations}};
  if (!related.empty())
    r["relatedLocations"] = related;
  r["partialFingerprints"] = {
      {"racepredictSignature/v1", signatureFingerprint(sf.signature)}};
  if (!f.witness.empty())
    r["codeFlows"] = json::array({codeFlow(f, opts.sourceRoot)});
  json props = sf.properties;
  props["signature"] = sf.signature;
  props["status"] = f.status;
  r["properties"] = props;
  return r;
}

json sarifLog(json results, const SarifOptions &opts) {
  json rules = json::array();
  for (const auto &r : kRules)
    rules.push_back(rule(r));
  json invocation{{"executionSuccessful", opts.executionSuccessful}};
  if (!opts.notifications.empty()) {
    json notes = json::array();
    for (const auto &n : opts.notifications)
      notes.push_back({{"level", n.level}, {"message", {{"text", n.message}}}});
    invocation["toolExecutionNotifications"] = notes;
  }
  json run{{"tool",
            {{"driver",
              {{"name", "racepredict"},
               {"version", opts.version},
               {"rules", rules}}}}},
           {"invocations", json::array({invocation})}};
  if (!opts.sourceRoot.empty()) {
    std::string root =
        fs::path(opts.sourceRoot).lexically_normal().generic_string();
    if (root.back() != '/')
      root += '/';
    run["originalUriBaseIds"] = {
        {"%SRCROOT%", {{"uri", "file://" + uriEscape(root)}}}};
  }
  run["results"] = std::move(results);
  if (!opts.runProperties.empty())
    run["properties"] = opts.runProperties;
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs", json::array({run})}};
}

json sarifFromFindings(const std::vector<SarifFinding> &fs,
                       const SarifOptions &opts) {
  json results = json::array();
  for (const SarifFinding &sf : fs)
    results.push_back(sarifResult(sf, opts));
  return sarifLog(std::move(results), opts);
}

} // namespace racepredict::report
