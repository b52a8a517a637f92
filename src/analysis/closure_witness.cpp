//===- analysis/closure_witness.cpp - Observed-order witnesses ------------===//
#include "racepredict/analysis/closure_witness.h"

#include <algorithm>

namespace racepredict::analysis {

using trace::Event;
using trace::EventKind;

ClosureWitnessFinder::ClosureWitnessFinder(const TraceIndex &idx) : idx_(idx) {
  const auto &events = idx.trace().events;
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

EventId ClosureWitnessFinder::observedWriter(EventId r) const {
  // The last write of the location before r in the trace (a binary search:
  // no per-event array).
  EventSpan ws = idx_.writesTo(idx_.trace().events[r].obj);
  const EventId *it = std::lower_bound(ws.begin(), ws.end(), r);
  return it == ws.begin() ? kNone : it[-1];
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
      if (trace::readsValue(ev.kind))
        if (EventId w = observedWriter(e); w != kNone)
          need.push_back(w);
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
        for (EventId w : idx_.wokenBy(e))
          if (EventId p = idx_.poPrev(w); p != kNone)
            need.push_back(p);
        break;
      case EventKind::Barrier:
        for (EventId m : idx_.barrierGenerations()[idx_.barrierGeneration(e)])
          if (EventId p = idx_.poPrev(m); p != kNone)
            need.push_back(p);
        break;
      case EventKind::SemWait:
        for (EventId q : idx_.semEvents(ev.obj)) {
          if (q > e)
            break;
          EventKind qk = events[q].kind;
          if (qk == EventKind::SemPost || qk == EventKind::SemInit)
            need.push_back(q);
        }
        break;
      case EventKind::TryFail:
        if (auto it = failHolder_.find(e); it != failHolder_.end())
          need.push_back(it->second);
        break;
      case EventKind::Send:
      case EventKind::Recv:
        for (EventId q : idx_.channelPredecessors(e))
          need.push_back(q);
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
