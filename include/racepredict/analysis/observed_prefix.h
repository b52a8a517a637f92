//===- analysis/observed_prefix.h - States along the observed run ---------===//
//
// The observed run, replayed once on the model (ModelState), with copies of
// its state every few hundred events. Closure witnesses of --all-pairs use
// them (analysis/closure_witness.h): a candidate (a, b) starts from the
// state after the observed events before a point X <= a, so its closure and
// schedule cover only what lies after X instead of its whole prefix (issue
// 17: ~50K steps per candidate on app 100K, quadratic overall). Every event
// before X is then in the witness, which is valid: the replay applied each
// step only when `blocked` allowed it.
//
#pragma once

#include "racepredict/analysis/model_state.h"
#include "racepredict/analysis/schedule_checker.h"
#include "racepredict/analysis/witness_schedule.h"

#include <vector>

namespace racepredict::analysis {

class ObservedPrefix {
public:
  /// One state of the replay: after the events before `end` (and the first
  /// halves their threads then reached), with `steps` steps.
  struct Checkpoint {
    EventId end;
    size_t steps;
    ModelState state;
  };

  /// Replays the observed order until the end of the trace or the first
  /// step the model does not enable (an inconsistent trace: no checkpoint
  /// beyond it). Checkpoints are at least `spacing` events apart, and
  /// further apart when the state is larger: copying one costs about as
  /// much as replaying that many steps, so a candidate pays about twice the
  /// spacing whatever the trace.
  ObservedPrefix(const TraceIndex &idx, size_t spacing);

  /// The latest checkpoint whose events all come before `x`.
  const Checkpoint &before(EventId x) const;
  /// The replay's first `n` steps, shared with every witness that starts
  /// with them (analysis/witness_schedule.h).
  WitnessSchedule steps(size_t n) const { return {steps_, n}; }

private:
  std::shared_ptr<const SharedSteps> steps_;
  std::vector<Checkpoint> checkpoints_;
};

} // namespace racepredict::analysis
