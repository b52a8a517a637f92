//===- analysis/witness_reuse.cpp - One witness, every pair it exhibits ---===//
//
// A cut is checked without replaying it where that is provably the same
// (issue 17: the replay of ~50K-step prefixes was most of a reused
// witness's cost). Every remembered witness was validated, and a prefix of
// a valid schedule is valid (each step's enabling depends only on the state
// the steps before it leave). So a cut of a validated prefix needs only the
// checker's final test: c and d next (the window guarantees it) and
// enabled. For kinds enabled whenever next (ModelState::enabledWhenNext:
// accesses, the usual racing events), that is: the fork of a thread whose
// first event it is lies in the cut. Any other case is replayed in full.
// FastStagesChangeNoVerdict checks every reused witness with the checker.
//
#include "racepredict/analysis/witness_reuse.h"

#include "racepredict/analysis/model_state.h"

#include <algorithm>

namespace racepredict::analysis {

WitnessPool::WitnessPool(const TraceIndex &idx, size_t capacity)
    : idx_(idx), capacity_(capacity) {}

void WitnessPool::add(const WitnessSchedule &steps) {
  if (capacity_ == 0)
    return;
  Entry w;
  w.steps = steps;
  w.done.resize(idx_.numThreads());
  const auto &events = idx_.trace().events;
  uint32_t i = 0;
  steps.forEach([&](const Step &s) {
    if (!s.half)
      w.done[events[s.event].thread].push_back(i);
    ++i;
  });
  // σ is valid; so is σ·a·b when a and b are enabled whenever next (a does
  // not move b's thread nor undo a fork).
  w.valid = steps.size();
  for (size_t i = std::max<size_t>(steps.size(), 2) - 2; i < steps.size(); ++i)
    if (steps[i].half ||
        !ModelState::enabledWhenNext(events[steps[i].event].kind))
      w.valid = std::min(w.valid, i);
  entries_.push_front(std::move(w));
  if (entries_.size() > capacity_)
    entries_.pop_back();
}

std::pair<size_t, size_t> WitnessPool::window(const Entry &w, EventId e) const {
  const auto &done = w.done[idx_.trace().events[e].thread];
  uint32_t p = idx_.posInThread(e);
  // Steps run each thread in program order: done[t] lists its first
  // done[t].size() events.
  if (p > done.size())
    return {1, 0}; // the witness never reaches e
  size_t lo = p == 0 ? 0 : done[p - 1] + 1;
  size_t hi = p < done.size() ? done[p] : w.steps.size();
  return {lo, hi};
}

bool WitnessPool::enabledAfterCut(const Entry &w, size_t len, EventId c,
                                  EventId d) const {
  const auto &events = idx_.trace().events;
  if (len > w.valid || events[c].thread == events[d].thread)
    return false;
  for (EventId e : {c, d}) {
    if (!ModelState::enabledWhenNext(events[e].kind))
      return false;
    ThreadId t = events[e].thread;
    EventId fork = idx_.forkOf(t);
    if (idx_.posInThread(e) > 0 || fork == kNone)
      continue;
    const auto &done = w.done[events[fork].thread];
    uint32_t p = idx_.posInThread(fork);
    if (p >= done.size() || done[p] >= len)
      return false;
  }
  return true;
}

std::optional<WitnessSchedule> WitnessPool::find(EventId c, EventId d) const {
  for (const Entry &w : entries_) {
    auto [loC, hiC] = window(w, c);
    auto [loD, hiD] = window(w, d);
    size_t len = std::max(loC, loD);
    if (len > std::min(hiC, hiD))
      continue;
    WitnessSchedule cut = w.steps.cut(len);
    if (!enabledAfterCut(w, len, c, d) &&
        checkRaceWitness(idx_, cut.steps(), c, d))
      continue;
    cut.push_back({c, false});
    cut.push_back({d, false});
    return cut;
  }
  return std::nullopt;
}

} // namespace racepredict::analysis
