//===- analysis/closure_witness.cpp - Observed-order witnesses ------------===//
#include "racepredict/analysis/closure_witness.h"

#include <algorithm>

namespace racepredict::analysis {

using trace::Event;
using trace::EventKind;

ClosureWitnessFinder::ClosureWitnessFinder(const TraceIndex &idx)
    : idx_(idx), writer_(idx.trace().events.size(), kNone) {
  const auto &events = idx.trace().events;
  std::unordered_map<trace::SymId, EventId> lastWrite;
  for (EventId e = 0; e < events.size(); ++e) {
    const Event &ev = events[e];
    if (trace::readsValue(ev.kind)) {
      auto it = lastWrite.find(ev.obj);
      if (it != lastWrite.end())
        writer_[e] = it->second;
    }
    if (trace::writesValue(ev.kind))
      lastWrite[ev.obj] = e;
    if (ev.kind == EventKind::SemPost || ev.kind == EventKind::SemInit)
      semPosts_[ev.obj].push_back(e);
    if (ev.kind == EventKind::Wait && ev.extra != kNone)
      woken_[ev.extra].push_back(e);
  }
  for (EventId e = 0; e < events.size(); ++e) {
    const Event &ev = events[e];
    if (ev.kind != EventKind::TryFail)
      continue;
    for (uint32_t si : idx.sectionsOf(ev.obj)) {
      const LockSection &s = idx.sections()[si];
      if (s.thread != ev.thread && !s.readMode && !s.releasedByWait &&
          s.acquire < e && (s.release == kNone || e < s.release)) {
        failHolder_[e] = s.acquire;
        break;
      }
    }
  }
}

void ClosureWitnessFinder::needLockFree(EventId e, trace::SymId lock,
                                        bool readMode,
                                        std::vector<EventId> &need) const {
  // Every other thread's latest conflicting section of `lock` that began
  // before `e` in the trace must have released it (program order gives the
  // earlier sections of that thread): per thread, a binary search.
  const auto &all = idx_.sections();
  trace::ThreadId self = idx_.trace().events[e].thread;
  for (trace::ThreadId u = 0; u < idx_.numThreads(); ++u) {
    if (u == self)
      continue;
    Span<uint32_t> secs = idx_.sectionsOf(lock, u);
    auto it = std::lower_bound(
        secs.begin(), secs.end(), e,
        [&](uint32_t s, EventId v) { return all[s].acquire < v; });
    while (it != secs.begin()) {
      const LockSection &s = all[*--it];
      if (readMode && s.readMode)
        continue;
      if (s.release == kNone)
        break; // never released: the checker will reject the schedule
      // A wait releases in its first half: its thread must reach the wait.
      EventId r = s.releasedByWait ? idx_.poPrev(s.release) : s.release;
      if (r != kNone)
        need.push_back(r);
      break;
    }
  }
}

bool ClosureWitnessFinder::close(Prefix &upto, EventId a, EventId b) const {
  const auto &events = idx_.trace().events;
  std::vector<EventId> need;
  for (EventId x : {a, b}) {
    EventId p = idx_.poPrev(x);
    if (p == kNone)
      p = idx_.forkOf(events[x].thread); // a thread's first event
    if (p != kNone)
      need.push_back(p);
  }
  while (!need.empty()) {
    EventId n = need.back();
    need.pop_back();
    trace::ThreadId t = events[n].thread;
    uint32_t want = idx_.posInThread(n) + 1;
    if (upto[t] >= want)
      continue;
    const auto &te = idx_.threadEvents(t);
    for (uint32_t p = upto[t]; p < want; ++p) {
      EventId e = te[p];
      const Event &ev = events[e];
      if (e == a || e == b)
        return false;
      if (p == 0 && idx_.forkOf(t) != kNone)
        need.push_back(idx_.forkOf(t));
      if (trace::readsValue(ev.kind) && writer_[e] != kNone)
        need.push_back(writer_[e]);
      switch (ev.kind) {
      case EventKind::Join: {
        const auto &child = idx_.threadEvents(ev.obj);
        if (!child.empty())
          need.push_back(child.back());
        break;
      }
      case EventKind::Acquire:
      case EventKind::RAcquire:
        needLockFree(e, ev.obj, ev.kind == EventKind::RAcquire, need);
        break;
      case EventKind::Wait:
        if (ev.extra != kNone)
          need.push_back(ev.extra);
        needLockFree(e, ev.aux, false, need);
        break;
      case EventKind::Signal:
      case EventKind::Broadcast:
        if (auto it = woken_.find(e); it != woken_.end())
          for (EventId w : it->second)
            if (EventId p = idx_.poPrev(w); p != kNone)
              need.push_back(p);
        break;
      case EventKind::Barrier:
        for (EventId m : idx_.barrierGenerations()[idx_.barrierGeneration(e)])
          if (EventId p = idx_.poPrev(m); p != kNone)
            need.push_back(p);
        break;
      case EventKind::SemWait:
        if (auto it = semPosts_.find(ev.obj); it != semPosts_.end())
          for (EventId q : it->second) {
            if (q > e)
              break;
            need.push_back(q);
          }
        break;
      case EventKind::TryFail:
        if (auto it = failHolder_.find(e); it != failHolder_.end())
          need.push_back(it->second);
        break;
      default:
        break;
      }
    }
    upto[t] = want;
  }
  return true;
}

std::optional<std::vector<Step>> ClosureWitnessFinder::find(EventId a,
                                                            EventId b) const {
  Prefix upto(idx_.numThreads(), 0);
  if (!close(upto, a, b))
    return std::nullopt;
  // The closure in observed order; expandWitness places the first halves
  // of waits and barriers.
  std::vector<EventId> order;
  for (trace::ThreadId t = 0; t < upto.size(); ++t) {
    const auto &te = idx_.threadEvents(t);
    order.insert(order.end(), te.begin(), te.begin() + upto[t]);
  }
  std::sort(order.begin(), order.end());
  auto steps = expandWitness(idx_, order);
  if (!steps || checkRaceWitness(idx_, *steps, a, b))
    return std::nullopt;
  steps->push_back({a, false});
  steps->push_back({b, false});
  return steps;
}

} // namespace racepredict::analysis
