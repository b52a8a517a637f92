//===- analysis/closure_witness.cpp - Reads-from-preserving witnesses -----===//
//
// The closure works on units, as the slicer does (analysis/pair_slice.h):
// unit 2p is the first half of the event at position p (a wait's release,
// a barrier's arrival), 2p+1 the event. It is a prefix of every thread,
// never reaching a or b.
//
#include "racepredict/analysis/closure_witness.h"

#include "racepredict/analysis/model_state.h"
#include "racepredict/analysis/sync_needs.h"

#include <algorithm>
#include <unordered_set>

namespace racepredict::analysis {

using trace::Event;
using trace::EventKind;

namespace {

uint32_t halfOf(uint32_t pos) { return 2 * pos; }
uint32_t eventOf(uint32_t pos) { return 2 * pos + 1; }

/// The last write of r's location before r in the trace (kNone: r reads
/// the initial value).
EventId observedWriter(const TraceIndex &idx, EventId r) {
  EventSpan ws = idx.writesTo(idx.trace().events[r].obj);
  const EventId *it = std::lower_bound(ws.begin(), ws.end(), r);
  return it == ws.begin() ? kNone : it[-1];
}

} // namespace

struct ClosureWitnessFinder::Closure {
  EventId a, b;
  std::vector<uint32_t> units; ///< per thread: units [0, units) are in it
  std::vector<uint32_t> limit; ///< per thread: no unit at or beyond
  std::vector<uint32_t> done;  ///< per thread: units processed
  std::vector<uint32_t> readMatter, tryfailMatter; ///< per thread
  std::unordered_set<EventId> precise; ///< reads a precise branch needs
  std::vector<ThreadId> dirty;
  /// Per lock: sections whose acquire is in the closure and whose release
  /// may not be; after close(), the one left open per lock (or none).
  std::unordered_map<SymId, std::vector<uint32_t>> sections;
  std::unordered_map<SymId, uint32_t> openSection;
  /// Close every section that can close, not only all but one per lock
  /// (the second schedule shape, see find).
  bool closeAll = false;
  /// Reads that matter whose observed writer lies beyond a or b: the
  /// earlier write of the same value they take instead.
  std::unordered_map<EventId, EventId> otherWriter;
  bool failed = false;

  bool matters(const TraceIndex &idx, EventId r) const {
    ThreadId t = idx.trace().events[r].thread;
    return idx.posInThread(r) < readMatter[t] || precise.count(r);
  }
  /// The write a read that matters waits for in the schedule (its other
  /// writer, else its observed one), or kNone.
  EventId awaitedWriter(const TraceIndex &idx, EventId r) const {
    if (!trace::readsValue(idx.trace().events[r].kind) || !matters(idx, r))
      return kNone;
    auto o = otherWriter.find(r);
    return o != otherWriter.end() ? o->second : observedWriter(idx, r);
  }
  /// Whether the greedy schedule of the closure must get stuck on a section
  /// left open: its acquire waits for every section of its lock that another
  /// thread takes in the closure, one of those comes after a read that
  /// matters of its thread, and that read's writer lies inside the open
  /// section. A cycle of waits: no schedule runs all of the closure. (Found
  /// before scheduling, it spares a schedule that would run most of the
  /// prefix and then stop; app 100K, issue 17.) Other stuck cases are left
  /// to the schedule.
  bool openSectionWaitsOnItself(const TraceIndex &idx) const {
    const auto &events = idx.trace().events;
    for (auto &[lock, gate] : openSection) {
      const LockSection &open = idx.sections()[gate];
      uint32_t from = idx.posInThread(open.acquire);
      // Per thread: past its last acquire of the lock in the closure.
      std::vector<uint32_t> until(units.size(), 0);
      for (uint32_t si : idx.sectionsOf(lock)) {
        const LockSection &s = idx.sections()[si];
        uint32_t p = idx.posInThread(s.acquire);
        if (s.thread != open.thread && 2 * p + 1 < units[s.thread])
          until[s.thread] = std::max(until[s.thread], p);
      }
      auto feedsFromOpen = [&](EventId r) {
        EventId w = awaitedWriter(idx, r);
        return w != kNone && events[w].thread == open.thread &&
               idx.posInThread(w) > from;
      };
      for (ThreadId t = 0; t < until.size(); ++t) {
        const auto &te = idx.threadEvents(t);
        for (uint32_t p = 0; p < std::min<uint32_t>(until[t], readMatter[t]);
             ++p)
          if (feedsFromOpen(te[p]))
            return true;
      }
      for (EventId r : precise)
        if (idx.posInThread(r) < until[events[r].thread] && feedsFromOpen(r))
          return true;
    }
    return false;
  }
  void need(ThreadId t, uint32_t u) {
    if (u > limit[t]) {
      failed = true;
      return;
    }
    if (u > units[t]) {
      units[t] = u;
      dirty.push_back(t);
    }
  }
};

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
        if (s.release == kNone || releaseUnit(s) > c.units[s.thread])
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

std::optional<std::vector<Step>>
ClosureWitnessFinder::schedule(const Closure &c) const {
  const auto &events = idx_.trace().events;
  size_t nt = idx_.numThreads();
  // The acquire of each open section waits for every other section of its
  // lock in the closure to be released.
  std::unordered_map<EventId, SymId> gated;
  for (auto &[lock, si] : c.openSection)
    gated[idx_.sections()[si].acquire] = lock;
  auto othersDone = [&](const ModelState &st, SymId lock, ThreadId self) {
    for (ThreadId h : st.holders(lock, false))
      if (h != self)
        return false;
    // Sections of other threads not yet acquired must come first too.
    for (uint32_t si : idx_.sectionsOf(lock)) {
      const LockSection &s = idx_.sections()[si];
      if (s.thread != self &&
          eventOf(idx_.posInThread(s.acquire)) < c.units[s.thread] &&
          !st.executed(s.acquire))
        return false;
    }
    return true;
  };
  ModelState st(idx_);
  std::vector<Step> out;
  // Per thread, its next step and what it waits for besides `blocked`:
  // fixed until the thread moves, so computed once per step of the
  // schedule instead of once per step and thread.
  struct Next {
    Step step{kNone, false};
    bool in = false;        ///< the step is in the closure
    bool fresh = false;     ///< computed since the thread last moved
    SymId gate = kNone;     ///< the acquire of an open section: its lock
    EventId writer = kNone; ///< a read that matters: its writer
  };
  std::vector<Next> nexts(nt);
  auto refresh = [&](ThreadId t) {
    Next &n = nexts[t];
    n = Next{};
    n.fresh = true;
    EventId e = st.next(t);
    if (e == kNone)
      return;
    bool half = trace::hasTwoHalves(events[e].kind) && !st.inFirstHalf(t);
    uint32_t p = idx_.posInThread(e);
    n.step = {e, half};
    n.in = (half ? halfOf(p) : eventOf(p)) < c.units[t];
    if (!n.in || half)
      return;
    if (auto g = gated.find(e); g != gated.end())
      n.gate = g->second;
    // A read that matters waits for its observed (or other) writer.
    n.writer = c.awaitedWriter(idx_, e);
  };
  for (;;) {
    Step best{kNone, false};
    bool left = false;
    for (ThreadId t = 0; t < nt; ++t) {
      if (!nexts[t].fresh)
        refresh(t);
      const Next &n = nexts[t];
      if (!n.in)
        continue;
      const Step &s = n.step;
      left = true;
      // A first half (a wait's release, a barrier's arrival) runs as soon
      // as its thread reaches it, as it did in the run: the trace lists the
      // event where it returned. Otherwise, the earliest observed step.
      if (best.half || (best.event != kNone && !s.half && s.event > best.event))
        continue;
      if (n.gate != kNone && !othersDone(st, n.gate, t))
        continue;
      if (n.writer != kNone && !st.executed(n.writer))
        continue;
      if (st.blocked(s))
        continue;
      best = s;
    }
    if (!left) // the closure ran: a and b must now be next and enabled
      return raceEnabledAfter(st, idx_, c.a, c.b) ? std::nullopt
                                                  : std::optional(out);
    if (best.event == kNone)
      return std::nullopt; // stuck
    st.apply(best);
    out.push_back(best);
    nexts[events[best.event].thread].fresh = false;
  }
}

std::optional<std::vector<Step>>
ClosureWitnessFinder::attempt(EventId a, EventId b, bool closeAll,
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
  for (EventId x : {a, b})
    c.limit[events[x].thread] = eventOf(idx_.posInThread(x)) - 1;
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
  auto steps = schedule(c);
  if (!steps)
    return std::nullopt;
  steps->push_back({a, false});
  steps->push_back({b, false});
  return steps;
}

std::optional<std::vector<Step>> ClosureWitnessFinder::find(EventId a,
                                                            EventId b) const {
  // First the smallest closure: one section per lock left open, run last.
  // Its greedy schedule gets stuck when a section left open wrote a value
  // that a later section of another thread's closure reads (the open one
  // waits for that section, which waits for the write). Closing every
  // section that can close keeps the observed order of all sections but
  // the ones holding a or b, at the price of a larger closure.
  // A closure that fails (it needs a or b, or two sections that cannot
  // close) fails with every section closed too: closing only adds needs.
  bool closed;
  if (auto w = attempt(a, b, false, &closed))
    return w;
  if (!closed)
    return std::nullopt;
  return attempt(a, b, true, &closed);
}

} // namespace racepredict::analysis
