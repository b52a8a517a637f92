//===- test/support/enumerator.h - Brute-force maximal causal model -------===//
//
// An explicit-state search over every prefix schedule of a trace, written
// directly from docs/semantics.md ("Schedules", "Values and concreteness",
// "Races") and independently of the SMT encoding and of the schedule
// checker, so that the differential test compares two implementations of
// the same definition. Exponential; meant for traces of a few dozen events.
//
#pragma once

#include "racepredict/analysis/schedule_checker.h"
#include "racepredict/analysis/trace_index.h"

#include <cstddef>
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace racepredict::testsupport {

using analysis::EventId;
using analysis::Step;

struct EnumerationResult {
  /// Every race (a, b), a < b, with one witness σ: a valid prefix schedule
  /// after which a and b are the next events of their threads (σ excludes
  /// a and b). The witness is a shortest one (breadth-first search).
  std::map<std::pair<EventId, EventId>, std::vector<Step>> races;
  /// Distinct states visited.
  size_t states = 0;
  /// The search stopped at the state limit: `races` may be incomplete.
  bool truncated = false;
  /// Some schedule executes every event of the trace. True for a trace
  /// recorded from a real execution whose every read is reproducible (a
  /// sanity check of the trace generator).
  bool fullyReachable = false;
};

/// An automaton that watches a schedule step by step (a pattern monitor for
/// the property differential test). Its states are small integers.
class ScheduleObserver {
public:
  static constexpr uint32_t kDead = UINT32_MAX; ///< stop this path
  virtual ~ScheduleObserver() = default;
  virtual uint32_t initial() const = 0;
  virtual uint32_t step(uint32_t state, const Step &s) const = 0;
  virtual bool accepting(uint32_t state) const = 0;
};

/// Breadth-first search over pairs (model state, observer state): the
/// shortest prefix schedule after which `obs` accepts, or nullopt if none
/// exists (or, with `*truncated` set, none was found within maxStates).
std::optional<std::vector<Step>>
findObservedSchedule(const analysis::TraceIndex &idx,
                     const ScheduleObserver &obs, size_t maxStates = 2000000,
                     bool *truncated = nullptr);

/// Explores all prefix schedules of `idx.trace()`, memoised on the model
/// state (thread positions and halves, memory with ⊥, read concreteness).
EnumerationResult enumerateRaces(const analysis::TraceIndex &idx,
                                 size_t maxStates = 2000000);

} // namespace racepredict::testsupport
