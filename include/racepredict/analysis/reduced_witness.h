//===- analysis/reduced_witness.h - Witnesses back on the original trace --===//
//
// A witness found on the trace without its thread-local accesses
// (analysis/local_reduction.h) gets each thread's dropped events back, in
// program order, before the step of that thread that follows them. What is
// put back before a step depends only on the steps before it, so a prefix
// that witnesses share expands once, and so does the rest of each
// (analysis/witness_schedule.h; issue 17).
//
#pragma once

#include "racepredict/analysis/local_reduction.h"
#include "racepredict/analysis/witness_schedule.h"

#include <utility>
#include <vector>

namespace racepredict::analysis {

/// The expansion of one schedule of the reduced trace, step by step.
class DroppedEventsBack {
public:
  DroppedEventsBack(const TraceIndex &full, const LocalReduction &r);

  /// The events of s's thread dropped before it, then s (original ids).
  void step(Step s, std::vector<Step> &out);
  /// The last steps (the racing pair): the dropped events before each of
  /// them, then them together at the end.
  void last(const Step *begin, const Step *end, std::vector<Step> &out);
  /// `rollback` returns to the state at `mark` (one shared prefix, then
  /// the own steps of each schedule that starts with it).
  void mark();
  void rollback();

private:
  /// Puts back the dropped events of e's thread before e; its thread.
  ThreadId upTo(EventId e, std::vector<Step> &out);
  void setNext(ThreadId t, uint32_t p);

  const TraceIndex &full_;
  const LocalReduction &r_;
  /// Per thread: the position of its first event not scheduled yet.
  std::vector<uint32_t> next_;
  bool marked_ = false;
  std::vector<std::pair<ThreadId, uint32_t>> undo_;
};

/// `expandSchedule` of local_reduction.h for each of `schedules`, in
/// place: what they shared stays shared (expanded once).
void expandSchedules(const TraceIndex &full, const LocalReduction &r,
                     const std::vector<WitnessSchedule *> &schedules,
                     size_t tail);

} // namespace racepredict::analysis
