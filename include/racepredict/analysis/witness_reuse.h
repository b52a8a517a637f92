//===- analysis/witness_reuse.h - One witness, every pair it exhibits -----===//
//
// A witness σ·a·b of one race often shows others too: whenever, after a
// prefix of it, two conflicting events c and d are both the next events of
// their threads, that prefix followed by c·d is a witness of (c, d). With
// --all-pairs the driver asks the witnesses found so far before the fast
// path and the solver (issue 17). A cut witness is only returned after the
// schedule checker has validated it, so a reused witness is as sound as a
// fresh one, and a pair no witness shows is simply decided as before:
// maximality is unchanged.
//
#pragma once

#include "racepredict/analysis/schedule_checker.h"
#include "racepredict/analysis/trace_index.h"
#include "racepredict/analysis/witness_schedule.h"

#include <deque>
#include <optional>
#include <vector>

namespace racepredict::analysis {

class WitnessPool {
public:
  /// Keeps the `capacity` most recent witnesses (each costs its own steps:
  /// what it shares stays shared, and so does a cut of it).
  WitnessPool(const TraceIndex &idx, size_t capacity);

  /// Remembers a validated race witness σ·a·b.
  void add(const WitnessSchedule &steps);

  /// A validated witness `σ'·c·d` cut from a remembered one (the newest
  /// first), or nullopt if none has a prefix after which c and d are both
  /// next.
  std::optional<WitnessSchedule> find(EventId c, EventId d) const;

private:
  struct Entry {
    WitnessSchedule steps;
    /// done[t][p]: the index of the step that completes the event at
    /// position p of thread t (only for the events the witness runs).
    std::vector<std::vector<uint32_t>> done;
    /// Its first `valid` steps are a valid schedule (witness_reuse.cpp).
    size_t valid = 0;
  };
  /// Whether, after the first `len` steps of `w` (c and d next), c and d
  /// are enabled, decided without a replay; false: replay to know.
  bool enabledAfterCut(const Entry &w, size_t len, EventId c, EventId d) const;
  /// The prefix lengths after which e is the next event of its thread:
  /// [lo, hi]; empty when lo > hi.
  std::pair<size_t, size_t> window(const Entry &w, EventId e) const;

  const TraceIndex &idx_;
  size_t capacity_;
  std::deque<Entry> entries_; ///< newest first
};

} // namespace racepredict::analysis
