//===- test/support/hb_reference.cpp - The quadratic HB detector ----------===//
//
// The first implementation of `analyze --hb` (issue 3), kept as the
// reference for the streaming one (analysis/hb_races.cpp): one clock per
// access and every conflicting pair enumerated.
//
#include "hb_reference.h"

#include "racepredict/analysis/candidates.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace racepredict::testsupport {

using namespace analysis;

using trace::Event;
using trace::EventKind;

namespace {

using Clock = std::vector<uint32_t>;

void join(Clock &into, const Clock &from) {
  for (size_t i = 0; i < into.size(); ++i)
    into[i] = std::max(into[i], from[i]);
}

} // namespace

std::vector<std::pair<EventId, EventId>>
hbRacesReference(const TraceIndex &idx) {
  const auto &events = idx.trace().events;
  size_t nt = idx.numThreads();
  // Clocks of accesses only (what the race check needs).
  std::unordered_map<EventId, Clock> accessClock;
  std::vector<Clock> thread(nt, Clock(nt, 0));
  std::unordered_map<SymId, Clock> lockClock, semClock, atomicClock,
      channelClock;
  std::unordered_map<EventId, Clock> notifyClock;
  std::vector<Clock> endClock(nt, Clock(nt, 0));
  std::vector<Clock> barrierArrivals(idx.barrierGenerations().size(),
                                     Clock(nt, 0));
  std::vector<char> barrierDone(idx.barrierGenerations().size(), 0);
  // A wait releases its lock in its first half, which the trace does not
  // record: place it just before the first later event that needs the lock
  // free (another thread's acquire of it, or the notify), else at the wait.
  std::unordered_map<EventId, std::vector<EventId>> halvesBefore;
  for (EventId w = 0; w < events.size(); ++w) {
    const Event &wv = events[w];
    if (wv.kind != EventKind::Wait)
      continue;
    EventId p = idx.poPrev(w);
    EventId at = w;
    for (EventId x = p == kNone ? 0 : p + 1; x < w; ++x) {
      const Event &xv = events[x];
      bool takesLock =
          xv.thread != wv.thread &&
          ((xv.kind == EventKind::Acquire || xv.kind == EventKind::RAcquire) &&
           xv.obj == wv.aux);
      if (takesLock || x == wv.extra) {
        at = x;
        break;
      }
    }
    halvesBefore[at].push_back(w);
  }
  std::vector<Clock> pending(nt); // a thread's clock at its fork
  for (EventId e = 0; e < events.size(); ++e) {
    const Event &ev = events[e];
    if (auto it = halvesBefore.find(e); it != halvesBefore.end())
      for (EventId w : it->second)
        join(lockClock.emplace(events[w].aux, Clock(nt, 0)).first->second,
             thread[events[w].thread]);
    Clock &c = thread[ev.thread];
    if (idx.posInThread(e) == 0 && !pending[ev.thread].empty())
      join(c, pending[ev.thread]);
    c[ev.thread] += 1;
    switch (ev.kind) {
    case EventKind::Fork:
      pending[ev.obj] = c;
      break;
    case EventKind::Join:
      join(c, endClock[ev.obj]);
      break;
    case EventKind::Acquire:
    case EventKind::RAcquire:
      if (auto it = lockClock.find(ev.obj); it != lockClock.end())
        join(c, it->second);
      break;
    case EventKind::Release:
      join(lockClock.emplace(ev.obj, Clock(nt, 0)).first->second, c);
      break;
    case EventKind::Wait:
      // Its release half was applied above; now the wake-up and re-acquire.
      if (auto it = notifyClock.find(ev.extra); it != notifyClock.end())
        join(c, it->second);
      join(c, lockClock[ev.aux]);
      break;
    case EventKind::Signal:
    case EventKind::Broadcast:
      notifyClock[e] = c;
      break;
    case EventKind::Barrier: {
      // Barrier events are recorded at departure, after every arrival: at
      // the generation's first recorded event, every member thread's clock
      // is its arrival clock, and every departure joins them all.
      uint32_t g = idx.barrierGeneration(e);
      if (!barrierDone[g]) {
        barrierDone[g] = 1;
        for (EventId m : idx.barrierGenerations()[g])
          join(barrierArrivals[g], thread[events[m].thread]);
      }
      join(c, barrierArrivals[g]);
      break;
    }
    case EventKind::SemInit:
    case EventKind::SemPost:
      join(semClock.emplace(ev.obj, Clock(nt, 0)).first->second, c);
      break;
    case EventKind::SemWait:
      if (auto it = semClock.find(ev.obj); it != semClock.end())
        join(c, it->second);
      break;
    // As TSan: a send releases into its channel, a receive acquires all
    // sends before it (the must edges of channel_order.h are fewer).
    case EventKind::Send:
      join(channelClock.emplace(ev.obj, Clock(nt, 0)).first->second, c);
      break;
    case EventKind::Recv:
      if (auto it = channelClock.find(ev.obj); it != channelClock.end())
        join(c, it->second);
      break;
    case EventKind::AtomicRead:
      if (auto it = atomicClock.find(ev.obj); it != atomicClock.end())
        join(c, it->second);
      break;
    case EventKind::AtomicRmw:
      if (auto it = atomicClock.find(ev.obj); it != atomicClock.end())
        join(c, it->second);
      join(atomicClock.emplace(ev.obj, Clock(nt, 0)).first->second, c);
      break;
    case EventKind::AtomicWrite:
      join(atomicClock.emplace(ev.obj, Clock(nt, 0)).first->second, c);
      break;
    default:
      break;
    }
    if (trace::isAccess(ev.kind) || ev.kind == EventKind::Free)
      accessClock[e] = c;
    endClock[ev.thread] = c;
  }

  std::vector<std::pair<EventId, EventId>> out;
  forEachConflictingPair(idx, [&](EventId a, EventId b) {
    // a precedes b in the trace; a ->hb b iff b's clock covers a.
    ThreadId ta = events[a].thread;
    if (accessClock[b][ta] < accessClock[a][ta])
      out.emplace_back(a, b);
  });
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace racepredict::testsupport
