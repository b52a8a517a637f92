//===- analysis/closure_witness.cpp - Reads-from-preserving witnesses -----===//
//
// The closure works on units, as the slicer does (analysis/pair_slice.h):
// unit 2p is the first half of the event at position p (a wait's release,
// a barrier's arrival), 2p+1 the event. It is a prefix of every thread,
// never reaching a or b.
//
// With --all-pairs a closure starts from a checkpoint of the observed run
// (analysis/observed_prefix.h) when it can: every event before the
// checkpoint's end X is in it, executed in observed order, and only what
// lies after X is closed and scheduled. A section open at X has run its
// acquire, so it cannot be the one run last: it must close. X lies before
// the acquires of the sections holding a or b, which must stay open. When
// that closure fails the candidate is tried from event 0 as before, so the
// races found are the same; their witnesses may differ (docs/slicing.md).
//
#include "racepredict/analysis/closure_witness.h"

#include "closure_internal.h"

#include "racepredict/analysis/model_state.h"
#include "racepredict/analysis/sync_needs.h"

#include <algorithm>
#include <unordered_set>

namespace racepredict::analysis {

using trace::Event;
using trace::EventKind;

ClosureWitnessFinder::ClosureWitnessFinder(const TraceIndex &idx,
                                           size_t checkpointSpacing)
    : idx_(idx) {
  if (checkpointSpacing > 0)
    prefix_ = std::make_unique<ObservedPrefix>(idx, checkpointSpacing);
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

EventId ClosureWitnessFinder::earlierWriterOfValue(const Closure &c,
                                                   EventId r) const {
  const auto &events = idx_.trace().events;
  const Event &re = events[r];
  int64_t v = re.kind == EventKind::AtomicRmw ? idx_.trace().rmwReadValue(re)
                                              : re.value;
  EventSpan ws = idx_.writesTo(re.obj);
  for (const EventId *it = std::lower_bound(ws.begin(), ws.end(), r);
       it != ws.begin();) {
    EventId w = *--it;
    if (events[w].value == v &&
        eventOf(idx_.posInThread(w)) + 1 <= c.limit[events[w].thread])
      return w;
  }
  return kNone;
}

bool ClosureWitnessFinder::close(Closure &c) const {
  const auto &events = idx_.trace().events;
  auto needEvent = [&](EventId e) {
    c.need(events[e].thread, eventOf(idx_.posInThread(e)) + 1);
  };
  auto needHalf = [&](EventId e) {
    c.need(events[e].thread, halfOf(idx_.posInThread(e)) + 1);
  };
  std::vector<EventId> mattering; // reads whose writer is still to take
  auto raiseReads = [&](ThreadId t, uint32_t p) {
    const auto &te = idx_.threadEvents(t);
    for (; c.readMatter[t] < p; ++c.readMatter[t]) {
      EventId e = te[c.readMatter[t]];
      if (trace::readsValue(events[e].kind) && !c.precise.count(e))
        mattering.push_back(e);
      else if (events[e].kind == EventKind::TryFail)
        mattering.push_back(e);
    }
  };
  auto raiseTryfails = [&](ThreadId t, uint32_t p) {
    const auto &te = idx_.threadEvents(t);
    for (; c.tryfailMatter[t] < p; ++c.tryfailMatter[t])
      if (events[te[c.tryfailMatter[t]]].kind == EventKind::TryFail)
        mattering.push_back(te[c.tryfailMatter[t]]);
  };
  auto processEvent = [&](EventId e) {
    const Event &ev = events[e];
    ThreadId t = ev.thread;
    uint32_t p = idx_.posInThread(e);
    forEachSyncNeed(
        idx_, e,
        [&](ThreadId j) {
          c.need(j, static_cast<uint32_t>(2 * idx_.threadEvents(j).size()));
        },
        needEvent, needHalf);
    switch (ev.kind) {
    case EventKind::SemWait: {
      // Every thread's last post or init before it in the trace: the
      // count at the wait is then at least the observed one.
      std::vector<EventId> last(idx_.numThreads(), kNone);
      for (EventId q : idx_.semEvents(ev.obj)) {
        if (q > e)
          break;
        if (events[q].kind != EventKind::SemWait)
          last[events[q].thread] = q;
      }
      for (EventId q : last)
        if (q != kNone)
          needEvent(q);
      break;
    }
    case EventKind::Branch:
      if (!idx_.trace().hasDeps(ev)) {
        raiseReads(t, p);
      } else {
        auto [d, end] = idx_.trace().deps(ev);
        for (; d != end; ++d)
          if (idx_.posInThread(*d) >= c.readMatter[t] &&
              c.precise.insert(*d).second)
            mattering.push_back(*d);
        raiseTryfails(t, p);
      }
      break;
    default:
      break;
    }
    if (ev.kind == EventKind::Acquire || ev.kind == EventKind::RAcquire ||
        ev.kind == EventKind::Wait)
      if (uint32_t si = idx_.sectionAcquiredAt(e); si != kNone)
        c.sections[idx_.sections()[si].lock].push_back(si);
  };
  auto takeMattering = [&](EventId r) {
    const Event &re = events[r];
    if (re.kind == EventKind::TryFail) {
      auto it = failHolder_.find(r);
      if (it == failHolder_.end())
        c.failed = true; // it did not fail against a write-mode holder
      else
        needEvent(it->second);
      return;
    }
    EventId w = observedWriter(idx_, r);
    if (w == kNone)
      return;
    if (eventOf(idx_.posInThread(w)) + 1 > c.limit[events[w].thread])
      if (EventId o = earlierWriterOfValue(c, r); o != kNone) {
        c.otherWriter[r] = o;
        w = o;
      }
    needEvent(w);
    // The writer must store its value: the reads it depends on matter too
    // (its dependence list, else all its earlier reads).
    ThreadId wt = events[w].thread;
    if (idx_.trace().hasDeps(events[w])) {
      auto [d, end] = idx_.trace().deps(events[w]);
      for (; d != end; ++d)
        if (idx_.posInThread(*d) >= c.readMatter[wt] &&
            c.precise.insert(*d).second)
          mattering.push_back(*d);
      raiseTryfails(wt, idx_.posInThread(w));
    } else {
      raiseReads(wt, idx_.posInThread(w) +
                         (events[w].kind == EventKind::AtomicRmw));
    }
  };

  for (;;) {
    while (!c.failed && (!c.dirty.empty() || !mattering.empty())) {
      if (!mattering.empty()) {
        EventId r = mattering.back();
        mattering.pop_back();
        takeMattering(r);
        continue;
      }
      ThreadId t = c.dirty.back();
      c.dirty.pop_back();
      const auto &te = idx_.threadEvents(t);
      while (c.done[t] < c.units[t]) {
        uint32_t u = c.done[t]++;
        if (u == 0 && idx_.forkOf(t) != kNone)
          needEvent(idx_.forkOf(t));
        if (u % 2 == 1)
          processEvent(te[u / 2]);
      }
    }
    if (c.failed)
      return false;
    // Locks: every section of the closure complete but one per lock (per
    // thread, for recursive ones), which runs last. Keep open the one that
    // cannot close (it holds a or b), else the latest (the observed order
    // then needs no change).
    auto releaseUnit = [&](const LockSection &s) {
      return s.releasedByWait ? halfOf(idx_.posInThread(s.release)) + 1
                              : eventOf(idx_.posInThread(s.release)) + 1;
    };
    auto canClose = [&](const LockSection &s) {
      return s.release != kNone && releaseUnit(s) <= c.limit[s.thread];
    };
    bool grew = false;
    c.openSection.clear();
    for (auto &[lock, secs] : c.sections) {
      std::vector<uint32_t> open;
      for (uint32_t si : secs) {
        const LockSection &s = idx_.sections()[si];
        if (s.release != kNone && releaseUnit(s) <= c.units[s.thread])
          continue;
        if (s.acquire < c.from) { // acquired before the start: cannot run last
          if (!canClose(s))
            return false;
          c.need(s.thread, releaseUnit(s));
          grew = true;
          continue;
        }
        open.push_back(si);
      }
      secs = open; // closed sections stay closed
      if (open.empty())
        continue;
      if (c.closeAll && std::all_of(open.begin(), open.end(), [&](uint32_t si) {
            return canClose(idx_.sections()[si]);
          })) {
        for (uint32_t si : open)
          c.need(idx_.sections()[si].thread, releaseUnit(idx_.sections()[si]));
        grew = true;
        continue;
      }
      const LockSection *keeper = nullptr;
      for (uint32_t si : open) {
        const LockSection &s = idx_.sections()[si];
        if (!canClose(s) && keeper && !canClose(*keeper) &&
            keeper->thread != s.thread)
          return false; // two sections that must both stay open
        if (!keeper || (!canClose(s) && canClose(*keeper)) ||
            (canClose(s) == canClose(*keeper) && s.acquire > keeper->acquire))
          keeper = &s;
      }
      uint32_t gate = kNone;
      for (uint32_t si : open) {
        const LockSection &s = idx_.sections()[si];
        if (s.thread == keeper->thread) {
          if (gate == kNone || s.acquire < idx_.sections()[gate].acquire)
            gate = si;
          continue;
        }
        if (!canClose(s))
          return false;
        c.need(s.thread, releaseUnit(s));
        grew = true;
      }
      c.openSection[lock] = gate;
    }
    if (!grew)
      return !c.failed;
  }
}

std::optional<WitnessSchedule>
ClosureWitnessFinder::attempt(EventId a, EventId b, bool closeAll,
                              const ObservedPrefix::Checkpoint *start,
                              bool *closed) const {
  const auto &events = idx_.trace().events;
  size_t nt = idx_.numThreads();
  Closure c;
  c.a = a;
  c.b = b;
  c.closeAll = closeAll;
  c.units.assign(nt, 0);
  c.done.assign(nt, 0);
  c.readMatter.assign(nt, 0);
  c.tryfailMatter.assign(nt, 0);
  c.limit.assign(nt, kNone);
  c.base.assign(nt, 0);
  for (EventId x : {a, b})
    c.limit[events[x].thread] = eventOf(idx_.posInThread(x)) - 1;
  if (start) {
    // The checkpoint's events ran; the sections open there are kept
    // (close() must close them).
    c.from = start->end;
    for (ThreadId t = 0; t < nt; ++t) {
      EventId n = start->state.next(t);
      uint32_t p = n == kNone
                       ? static_cast<uint32_t>(idx_.threadEvents(t).size())
                       : idx_.posInThread(n);
      c.base[t] = c.readMatter[t] = c.tryfailMatter[t] = p;
      c.units[t] = c.done[t] = 2 * p + start->state.inFirstHalf(t);
      if (c.units[t] > c.limit[t]) {
        *closed = false;
        return std::nullopt;
      }
      for (uint32_t si : idx_.sectionsOpenAfter(t, p))
        c.sections[idx_.sections()[si].lock].push_back(si);
    }
  }
  for (EventId x : {a, b}) {
    ThreadId t = events[x].thread;
    c.need(t, eventOf(idx_.posInThread(x)) - 1);
    if (idx_.posInThread(x) == 0 && idx_.forkOf(t) != kNone)
      c.need(events[idx_.forkOf(t)].thread,
             eventOf(idx_.posInThread(idx_.forkOf(t))) + 1);
  }
  *closed = close(c);
  if (!*closed || c.openSectionWaitsOnItself(idx_))
    return std::nullopt;
  // No replay by the schedule checker: schedule() applied each step to a
  // ModelState only once `blocked` allowed it, from the initial state, which
  // is the checker's replay step for step, and it ends with the checker's
  // final test (raceEnabledAfter). The replay cost as much as the schedule
  // itself (~50K steps per candidate on app 100K, issue 17);
  // FastStagesChangeNoVerdict still runs the full checker on every witness.
  auto steps = schedule(c, start);
  if (!steps)
    return std::nullopt;
  steps->push_back({a, false});
  steps->push_back({b, false});
  return steps;
}

std::optional<WitnessSchedule>
ClosureWitnessFinder::findFromCheckpoint(EventId a, EventId b) const {
  if (!prefix_)
    return std::nullopt;
  // The latest checkpoint before a, b and the acquires of the sections
  // holding them (they must stay open).
  EventId x = std::min(a, b);
  for (EventId e : {a, b})
    for (uint32_t si : idx_.sectionsOpenAfter(idx_.trace().events[e].thread,
                                              idx_.posInThread(e)))
      x = std::min(x, idx_.sections()[si].acquire);
  const ObservedPrefix::Checkpoint &cp = prefix_->before(x);
  if (cp.end == 0)
    return std::nullopt; // the same closure as from the start
  bool closed;
  if (auto w = attempt(a, b, false, &cp, &closed))
    return w;
  if (!closed)
    return std::nullopt;
  return attempt(a, b, true, &cp, &closed);
}

std::optional<WitnessSchedule>
ClosureWitnessFinder::findFromStart(EventId a, EventId b) const {
  // First the smallest closure: one section per lock left open, run last.
  // Its greedy schedule gets stuck when a section left open wrote a value
  // that a later section of another thread's closure reads (the open one
  // waits for that section, which waits for the write). Closing every
  // section that can close keeps the observed order of all sections but
  // the ones holding a or b, at the price of a larger closure.
  // A closure that fails (it needs a or b, or two sections that cannot
  // close) fails with every section closed too: closing only adds needs.
  bool closed;
  if (auto w = attempt(a, b, false, nullptr, &closed))
    return w;
  if (!closed)
    return std::nullopt;
  return attempt(a, b, true, nullptr, &closed);
}

std::optional<WitnessSchedule> ClosureWitnessFinder::find(EventId a,
                                                          EventId b) const {
  if (auto w = findFromCheckpoint(a, b))
    return w;
  return findFromStart(a, b);
}

} // namespace racepredict::analysis
