//===- analysis/witness_reuse.cpp - One witness, every pair it exhibits ---===//
#include "racepredict/analysis/witness_reuse.h"

#include <algorithm>

namespace racepredict::analysis {

WitnessPool::WitnessPool(const TraceIndex &idx, size_t capacity)
    : idx_(idx), capacity_(capacity) {}

void WitnessPool::add(const std::vector<Step> &steps) {
  if (capacity_ == 0)
    return;
  Entry w;
  w.steps = steps;
  w.done.resize(idx_.numThreads());
  const auto &events = idx_.trace().events;
  for (uint32_t i = 0; i < steps.size(); ++i)
    if (!steps[i].half)
      w.done[events[steps[i].event].thread].push_back(i);
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

std::optional<std::vector<Step>> WitnessPool::find(EventId c, EventId d) const {
  for (const Entry &w : entries_) {
    auto [loC, hiC] = window(w, c);
    auto [loD, hiD] = window(w, d);
    size_t len = std::max(loC, loD);
    if (len > std::min(hiC, hiD))
      continue;
    std::vector<Step> cut(w.steps.begin(), w.steps.begin() + len);
    if (checkRaceWitness(idx_, cut, c, d))
      continue;
    cut.push_back({c, false});
    cut.push_back({d, false});
    return cut;
  }
  return std::nullopt;
}

} // namespace racepredict::analysis
