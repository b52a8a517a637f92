//===- tools/racepredict/check_violation.cpp - Re-validate a violation ----===//
#include "check_violation.h"

#include "racepredict/analysis/schedule_checker.h"
#include "racepredict/property/pattern_check.h"

#include <algorithm>

namespace racepredict::tool {

using analysis::EventId;

std::string checkViolation(const analysis::TraceIndex &idx,
                           const nlohmann::json &v,
                           const std::vector<property::Property> &props) {
  std::vector<EventId> events;
  for (const auto &e : v.at("events"))
    events.push_back(e.at("event").get<EventId>());
  auto witness = v.at("witness").get<std::vector<EventId>>();
  if (events.empty())
    return "the violation names no events";
  if (witness.empty() || witness.back() != events.back())
    return "the witness does not end with the last violating event";
  size_t pos = 0;
  for (EventId e : events) {
    auto it = std::find(witness.begin() + pos, witness.end(), e);
    if (it == witness.end())
      return "event " + std::to_string(e) +
             " is not in the witness after the previous step";
    pos = static_cast<size_t>(it - witness.begin()) + 1;
  }
  std::vector<analysis::Step> steps;
  if (v.contains("steps")) {
    for (const auto &s : v["steps"])
      steps.push_back({s.at("event").get<EventId>(), s.at("half").get<bool>()});
  } else if (auto expanded = analysis::expandWitness(idx, witness)) {
    steps = *expanded;
  } else {
    std::vector<analysis::Step> plain;
    for (EventId e : witness)
      plain.push_back({e, false});
    auto why = analysis::checkPrefixSchedule(idx, plain);
    return why ? *why : "no placement of wait/barrier halves makes it valid";
  }
  if (auto why = analysis::checkPrefixSchedule(idx, steps))
    return *why;
  std::string name = v.at("property").get<std::string>();
  for (const property::Property &p : props) {
    if (p.name != name)
      continue;
    auto pi = v.at("pattern_index").get<size_t>();
    if (pi >= p.patterns.size())
      return "property " + name + " has no pattern " + std::to_string(pi);
    property::TraceMatcher m(idx.trace());
    auto why =
        property::checkPatternOnSchedule(m, p.patterns[pi], events, witness);
    return why ? *why : "";
  }
  return "";
}

} // namespace racepredict::tool
