//===- tools/racepredict/check_violation.cpp - A violation's pattern ------===//
#include "check_violation.h"

#include "racepredict/property/pattern_check.h"

namespace racepredict::tool {

std::optional<std::string>
checkViolationPattern(const analysis::TraceIndex &idx,
                      const report::WitnessSpec &v,
                      const std::vector<property::Property> &props) {
  for (const property::Property &p : props) {
    if (p.name != v.property)
      continue;
    if (v.patternIndex >= p.patterns.size())
      return "property " + v.property + " has no pattern " +
             std::to_string(v.patternIndex);
    property::TraceMatcher m(idx.trace());
    return property::checkPatternOnSchedule(m, p.patterns[v.patternIndex],
                                            v.violationEvents, v.witness);
  }
  return std::nullopt;
}

} // namespace racepredict::tool
