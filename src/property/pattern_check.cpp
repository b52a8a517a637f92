//===- property/pattern_check.cpp - Does a schedule exhibit a pattern? ----===//
#include "racepredict/property/pattern_check.h"

namespace racepredict::property {

std::optional<std::string>
checkPatternOnSchedule(const TraceMatcher &m, const Pattern &pattern,
                       const std::vector<EventId> &events,
                       const std::vector<EventId> &schedule) {
  size_t k = pattern.steps.size();
  if (events.size() != k)
    return "the violation names " + std::to_string(events.size()) +
           " events for a pattern of " + std::to_string(k) + " steps";
  if (schedule.empty() || schedule.back() != events.back())
    return "the schedule does not end with event " +
           std::to_string(events.back());
  Binding b = Binding::empty(pattern);
  std::vector<PreparedEvent> steps;
  for (size_t i = 0; i < k; ++i) {
    steps.push_back(m.prepare(pattern.steps[i]));
    if (!m.matches(steps[i], events[i], b, true))
      return "event " + std::to_string(events[i]) + " does not match step " +
             std::to_string(i + 1) + " (" +
             toString(pattern.steps[i], pattern) + ")";
  }
  std::vector<std::vector<PreparedEvent>> gaps(k);
  for (size_t g = 0; g < k; ++g)
    for (const EventPattern &item : pattern.gaps[g])
      gaps[g].push_back(m.prepare(item));
  // Walk the schedule: `next` is the step expected next; every event before
  // it lies in gap `next`.
  size_t next = 0;
  for (size_t pos = 0; pos < schedule.size() && next < k; ++pos) {
    EventId e = schedule[pos];
    if (e == events[next]) {
      ++next;
      continue;
    }
    for (size_t j = next + 1; j < k; ++j)
      if (e == events[j])
        return "event " + std::to_string(e) + " (step " +
               std::to_string(j + 1) + ") comes before step " +
               std::to_string(next + 1) + " in the schedule";
    for (size_t item = 0; item < gaps[next].size(); ++item) {
      Binding probe = b;
      if (m.matches(gaps[next][item], e, probe, false))
        return "event " + std::to_string(e) + " at position " +
               std::to_string(pos + 1) + " matches the gap item " +
               toString(pattern.gaps[next][item], pattern) + " before step " +
               std::to_string(next + 1);
    }
  }
  if (next < k)
    return "step " + std::to_string(next + 1) + " (event " +
           std::to_string(events[next]) + ") is missing from the schedule";
  return std::nullopt;
}

} // namespace racepredict::property
