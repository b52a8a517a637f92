//===- analysis/hb_races.cpp - Vector-clock happens-before races ----------===//
#include "racepredict/analysis/hb_races.h"

#include "racepredict/analysis/candidate_groups.h"
#include "racepredict/analysis/memory_objects.h"

#include "latest_by_signature.h"

#include <algorithm>
#include <set>
#include <unordered_map>

namespace racepredict::analysis {

using trace::Event;
using trace::EventKind;

namespace {

using Clock = std::vector<uint32_t>;

void join(Clock &into, const Clock &from) {
  for (size_t i = 0; i < into.size(); ++i)
    into[i] = std::max(into[i], from[i]);
}

/// Calls onAccess(e, clock) for every access and free in trace order, with
/// its HB clock (clock[t]: how many events of thread t happen before or are
/// e).
template <typename OnAccess>
void scanClocks(const TraceIndex &idx, OnAccess onAccess) {
  const auto &events = idx.trace().events;
  size_t nt = idx.numThreads();
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
    EventId from = p == kNone ? 0 : p + 1;
    EventId at = w;
    if (wv.extra != kNone && wv.extra >= from && wv.extra < at)
      at = wv.extra;
    for (ThreadId u = 0; u < nt; ++u) {
      if (u == wv.thread)
        continue;
      Span<uint32_t> secs = idx.sectionsOf(wv.aux, u);
      auto it = std::lower_bound(secs.begin(), secs.end(), from,
                                 [&](uint32_t si, EventId v) {
                                   return idx.sections()[si].acquire < v;
                                 });
      for (; it != secs.end(); ++it) {
        EventId acq = idx.sections()[*it].acquire;
        if (acq >= at)
          break;
        if (events[acq].kind != EventKind::Wait) {
          at = acq;
          break;
        }
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
      onAccess(e, c);
    endClock[ev.thread] = c;
  }
}

/// Access kinds for the conflict rule: plain read, plain write, atomic
/// read, atomic write (an rmw writes), free (writes the object it ends).
constexpr uint8_t kFreeKind = 4;
uint8_t kindOf(EventKind k) {
  return k == EventKind::Read         ? 0
         : k == EventKind::Write      ? 1
         : k == EventKind::AtomicRead ? 2
         : k == EventKind::Free       ? kFreeKind
                                      : 3;
}
bool kindsConflict(uint8_t x, uint8_t y) {
  if (x == kFreeKind || y == kFreeKind)
    return x != y; // a free and any access; two frees touch no memory
  bool writes = x == 1 || x == 3 || y == 1 || y == 3;
  return writes && !(x >= 2 && y >= 2);
}

/// The earlier accesses of one location (current allocation generation),
/// per (thread, kind): all of them, and the latest per signature.
struct Slot {
  ThreadId thread;
  uint8_t kind;
  std::vector<EventId> all;
  LatestBySignature latest;
};
struct LocState {
  uint32_t gen = 0;
  std::vector<Slot> slots;
};

/// Visits, for every access e2, each earlier slot it conflicts with and the
/// first index in slot.all of an access not HB-before e2.
template <typename OnRacing>
void scanRaces(const TraceIndex &idx, OnRacing onRacing) {
  const auto &events = idx.trace().events;
  std::vector<LocState> locs(
      idx.trace().table(trace::NameSpace::Location).size());
  // e2 touches `loc`: an access of it, or a free ending it.
  auto visit = [&](EventId e2, SymId loc, const Clock &c) {
    const Event &ev = events[e2];
    LocState &L = locs[loc];
    uint32_t gen = idx.objects().generation(loc, e2);
    if (gen != L.gen) { // memory reused: nothing before conflicts
      L.gen = gen;
      L.slots.clear();
    }
    uint8_t k2 = kindOf(ev.kind);
    Slot *own = nullptr;
    for (Slot &s : L.slots) {
      if (s.thread == ev.thread && s.kind == k2)
        own = &s;
      if (s.thread == ev.thread || !kindsConflict(s.kind, k2))
        continue;
      // e1 ->hb e2 iff e2's clock covers e1: a prefix of the slot.
      uint32_t cut = c[s.thread];
      auto first =
          std::partition_point(s.all.begin(), s.all.end(), [&](EventId e1) {
            return idx.posInThread(e1) < cut;
          });
      onRacing(e2, s, static_cast<size_t>(first - s.all.begin()), cut);
    }
    if (!own) {
      L.slots.push_back({ev.thread, k2, {}, {}});
      own = &L.slots.back();
    }
    own->all.push_back(e2);
    own->latest.update(signatureKey(idx.trace(), e2), e2);
  };
  scanClocks(idx, [&](EventId e2, const Clock &c) {
    if (events[e2].kind != EventKind::Free)
      visit(e2, events[e2].obj, c);
    else
      for (SymId loc : idx.objects().freedBy(e2))
        visit(e2, loc, c);
  });
}

} // namespace

HbSummary hbSummary(const TraceIndex &idx) {
  HbSummary out;
  const trace::Trace &t = idx.trace();
  std::set<std::pair<uint64_t, uint64_t>> seen;
  scanRaces(idx, [&](EventId e2, const Slot &s, size_t first, uint32_t cut) {
    out.pairs += s.all.size() - first;
    if (first == s.all.size())
      return;
    uint64_t s2 = signatureKey(t, e2);
    for (const auto *x = s.latest.from(idx, cut); x != s.latest.end(); ++x) {
      if (x->stale)
        continue;
      auto key =
          x->sig < s2 ? std::make_pair(x->sig, s2) : std::make_pair(s2, x->sig);
      if (seen.insert(key).second)
        out.groups.emplace_back(x->latest, e2);
    }
  });
  std::sort(out.groups.begin(), out.groups.end());
  return out;
}

std::vector<std::pair<EventId, EventId>> hbRaces(const TraceIndex &idx) {
  std::vector<std::pair<EventId, EventId>> out;
  scanRaces(idx, [&](EventId e2, const Slot &s, size_t first, uint32_t) {
    for (size_t i = first; i < s.all.size(); ++i)
      out.emplace_back(s.all[i], e2);
  });
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace racepredict::analysis
