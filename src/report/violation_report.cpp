//===- report/violation_report.cpp - Property violations: text and JSON ---===//
#include "racepredict/report/violation_report.h"
#include "racepredict/report/witness_condense.h"

#include "racepredict/support/file_io.h"

#include <filesystem>
#include <ostream>

namespace racepredict::report {

using json = nlohmann::ordered_json;

namespace {

json bindingJson(const solver::ViolationFinding &v) {
  json b = json::object();
  for (const auto &[var, val] : v.binding)
    if (var != "$loc")
      b[var] = val;
    else
      b["location"] = val;
  return b;
}

std::string bindingText(const solver::ViolationFinding &v) {
  std::string s;
  for (const auto &[var, val] : v.binding)
    s += (s.empty() ? "" : ", ") +
         (var == "$loc" ? std::string("location") : var) + " = " + val;
  return s;
}

/// The violating events, each with the pattern step it matched.
json eventsJson(const trace::Trace &t, const solver::ViolationFinding &v,
                const property::Pattern &pat) {
  json events = json::array();
  for (size_t i = 0; i < v.events.size(); ++i) {
    json e = eventJson(t, v.events[i]);
    e["step"] = property::toString(pat.steps[i], pat);
    events.push_back(e);
  }
  return events;
}

} // namespace

json violationJson(const trace::Trace &t, const solver::ViolationFinding &v,
                   const Properties &props, bool witness) {
  const property::Property &p = props[v.property];
  const property::Pattern &pat = p.patterns[v.pattern];
  json j{{"property", p.name},
         {"kind", property::kindName(p.kind)},
         {"pattern", property::toString(pat)},
         {"pattern_index", v.pattern},
         {"origin", pat.origin},
         {"binding", bindingJson(v)},
         {"events", eventsJson(t, v, pat)},
         {"observed", v.observed},
         {"witness", witness ? json(v.witness) : json::array()}};
  addStepsWithHalves(j, v.steps, witness);
  return j;
}

json violationsJson(const trace::Trace &t, const solver::PropertyResult &r,
                    const Properties &props) {
  json out = json::array();
  for (const auto &v : r.violations)
    out.push_back(violationJson(t, v, props, true));
  return out;
}

json unknownViolationsJson(const solver::PropertyResult &r,
                           const Properties &props) {
  json out = json::array();
  for (const auto &u : r.unknowns)
    out.push_back({{"property", props[u.property].name},
                   {"events", u.events},
                   {"reason", u.reason}});
  return out;
}

void printViolation(const trace::Trace &t, const solver::ViolationFinding &v,
                    const Properties &props, const std::string &headline,
                    std::ostream &out, bool fullWitness) {
  const property::Property &p = props[v.property];
  const property::Pattern &pat = p.patterns[v.pattern];
  out << "==================\n"
      << "WARNING: racepredict: property violation (" << headline
      << "): " << p.name << "\n";
  if (!p.description.empty())
    out << "  " << p.description << "\n";
  out << "  " << pat.origin << ": " << property::toString(pat) << "\n";
  if (!v.binding.empty())
    out << "  with " << bindingText(v) << "\n";
  for (size_t i = 0; i < v.events.size(); ++i)
    out << "  Step " << i + 1 << " " << property::toString(pat.steps[i], pat)
        << ": event " << v.events[i] << ", " << describeEvent(t, v.events[i])
        << "\n";
  std::vector<bool> essential = essentialSteps(t, v.witness, v.events);
  printWitness(
      out, t, v.witness, essential,
      [&](size_t i) {
        trace::EventId e = v.witness[i];
        std::string s = "[" + std::to_string(e) + "] " + describeEvent(t, e);
        for (size_t k = 0; k < v.events.size(); ++k)
          if (v.events[k] == e)
            s += "   <== step " + std::to_string(k + 1);
        return s;
      },
      "it ends with the last step", fullWitness);
}

void printViolationReport(const trace::Trace &t,
                          const solver::PropertyResult &r,
                          const Properties &props, const ReportContext &ctx,
                          std::ostream &out) {
  for (const auto &v : r.violations)
    printViolation(t, v, props, v.observed ? "observed" : "predicted", out,
                   ctx.fullWitness);
  if (!r.violations.empty())
    out << "==================\n";
  for (const auto &u : r.unknowns) {
    out << "racepredict: could not decide property " << props[u.property].name;
    if (!u.events.empty()) {
      out << " on events (";
      for (size_t i = 0; i < u.events.size(); ++i)
        out << (i ? ", " : "") << u.events[i];
      out << ")";
    }
    out << ": " << u.reason << "\n";
  }
  const auto &s = r.stats;
  out << "SUMMARY: racepredict: " << r.violations.size()
      << " property violation" << (r.violations.size() == 1 ? "" : "s")
      << " found in " << (ctx.tracePath.empty() ? "trace" : ctx.tracePath)
      << " (" << s.properties << " propert" << (s.properties == 1 ? "y" : "ies")
      << ", " << s.candidates << " candidates, " << s.observed << " observed, "
      << s.solverCalls << " solver calls, " << s.unknown << " unknown)\n";
}

json violationWitnessJson(const trace::Trace &t,
                          const solver::PropertyResult &r, size_t index,
                          const Properties &props,
                          const std::string &tracePath) {
  const auto &v = r.violations[index];
  const property::Property &p = props[v.property];
  const property::Pattern &pat = p.patterns[v.pattern];
  return {{"tool", "racepredict"},
          {"kind", "violation"},
          {"trace", tracePath},
          {"property", p.name},
          {"property_file", p.file},
          {"pattern", property::toString(pat)},
          {"pattern_index", v.pattern},
          {"binding", bindingJson(v)},
          {"events", eventsJson(t, v, pat)},
          {"observed", v.observed},
          {"witness", v.witness},
          {"steps", stepsJson(v.steps)}};
}

bool writeViolationWitnessFiles(const std::string &dir, const trace::Trace &t,
                                const solver::PropertyResult &r,
                                const Properties &props,
                                const std::string &tracePath,
                                std::string *err) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  for (size_t i = 0; i < r.violations.size(); ++i) {
    std::string name = dir + "/violation-" + std::to_string(i) + ".json";
    auto w = writeWholeFile(
        name, "witness file",
        jsonText(violationWitnessJson(t, r, i, props, tracePath)) + "\n");
    if (!w) {
      *err = w.error().message;
      return false;
    }
  }
  return true;
}

} // namespace racepredict::report
