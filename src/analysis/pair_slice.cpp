//===- analysis/pair_slice.cpp - The events a race query needs ------------===//
//
// The closure of docs/slicing.md. Every rule only raises per-thread bounds
// (slices are prefixes), so the closure costs the size of the slice plus a
// binary search per helper lookup: never the length of the trace.
//
#include "racepredict/analysis/pair_slice.h"
#include "racepredict/analysis/sync_needs.h"

#include "racepredict/support/error.h"

#include "slice_internal.h"

#include <algorithm>

namespace racepredict::analysis {

using trace::Event;
using trace::EventKind;

bool PairSlice::hasEvent(const TraceIndex &idx, EventId e) const {
  ThreadId t = idx.trace().events[e].thread;
  return eventUnit(idx.posInThread(e)) < upto[t];
}

bool PairSlice::hasHalf(const TraceIndex &idx, EventId e) const {
  ThreadId t = idx.trace().events[e].thread;
  return halfUnit(idx.posInThread(e)) < upto[t];
}

bool PairSlice::frozenEvent(const TraceIndex &idx, EventId e) const {
  ThreadId t = idx.trace().events[e].thread;
  return eventUnit(idx.posInThread(e)) < frozen[t];
}

bool PairSlice::matters(const TraceIndex &idx, EventId r) const {
  ThreadId t = idx.trace().events[r].thread;
  uint32_t p = idx.posInThread(r);
  if (p < readMatter[t])
    return true;
  if (idx.trace().events[r].kind == EventKind::TryFail)
    return p < tryfailMatter[t];
  return preciseMatter.count(r) != 0;
}

uint32_t PairSlice::cap(const TraceIndex &idx, ThreadId t) const {
  if (endUnit[t] != kNone)
    return endUnit[t];
  uint32_t lim = limitPos[t];
  size_t len = idx.threadEvents(t).size();
  if (lim >= len)
    return static_cast<uint32_t>(2 * len);
  return halfUnit(lim) + 1;
}

size_t PairSlice::units() const {
  size_t n = 0;
  for (size_t t = 0; t < upto.size(); ++t)
    n += upto[t] - frozen[t];
  return n;
}

/// The worklist closure over one slice.
class SliceBuilder {
public:
  SliceBuilder(const Slicer &sl, PairSlice &s)
      : idx_(sl.idx_), t_(sl.idx_.trace()), sl_(sl), s_(s),
        done_(s.upto.begin(), s.upto.end()) {
    // done_: units already processed (everything in the slice so far).
  }

  /// Raises thread t's slice to `units` (capped at what may be in a
  /// witness). Returns false if the cap cut the request.
  bool needUnits(ThreadId t, uint32_t units) {
    uint32_t cap = capUnits(t);
    bool ok = units <= cap;
    units = std::min(units, cap);
    if (units > s_.upto[t]) {
      s_.upto[t] = units;
      dirty_.push_back(t);
    }
    return ok;
  }
  bool needEvent(EventId e) {
    return needUnits(t_.events[e].thread, eventUnit(idx_.posInThread(e)) + 1);
  }
  bool needHalf(EventId e) {
    return needUnits(t_.events[e].thread, halfUnit(idx_.posInThread(e)) + 1);
  }
  /// A must-happen-before predecessor: the cap can never cut it, since the
  /// cap is where must-happen-after a or b begins (docs/slicing.md).
  void needPast(bool ok) {
    if (!ok)
      pastCut_ = true;
  }

  void run() {
    for (;;) {
      while (!dirty_.empty()) {
        ThreadId t = dirty_.back();
        dirty_.pop_back();
        processThread(t);
      }
      if (!sl_.options().eager || !openSectionsRule())
        break;
    }
  }
  bool pastCut() const { return pastCut_; }

private:
  uint32_t capUnits(ThreadId t) const { return s_.cap(idx_, t); }

  void processThread(ThreadId t) {
    const auto &te = idx_.threadEvents(t);
    while (done_[t] < s_.upto[t]) {
      uint32_t unit = done_[t]++;
      // A first half needs the fork too (a wait or barrier opening a
      // thread). Not as must-past: if the cap cuts the fork, the encoding
      // keeps the half after the cut (slice_encoding.cpp).
      if (unit == 0 && idx_.forkOf(t) != kNone)
        needEvent(idx_.forkOf(t));
      if (unit % 2 == 0)
        continue; // a half: its past is program order
      processEvent(te[unit / 2]);
    }
  }

  void processEvent(EventId e) {
    const Event &ev = t_.events[e];
    ThreadId t = ev.thread;
    uint32_t p = idx_.posInThread(e);
    if (p == 0 && idx_.forkOf(t) != kNone)
      needPast(needEvent(idx_.forkOf(t)));
    forEachSyncNeed(
        idx_, e,
        [&](ThreadId j) {
          needPast(needUnits(
              j, static_cast<uint32_t>(2 * idx_.threadEvents(j).size())));
        },
        [&](EventId q) { needPast(needEvent(q)); },
        [&](EventId w) { needPast(needHalf(w)); });
    switch (ev.kind) {
    case EventKind::SemWait:
      if (sl_.options().eager)
        eagerPosts(e);
      break;
    case EventKind::Branch:
      if (!t_.hasDeps(ev)) {
        raiseReadMatter(t, p);
      } else {
        auto [d, end] = t_.deps(ev);
        for (; d != end; ++d)
          if (idx_.posInThread(*d) >= s_.readMatter[t] &&
              s_.preciseMatter.insert(*d).second)
            onReadMatters(*d);
        raiseTryfailMatter(t, p);
      }
      break;
    default:
      break;
    }
    if (trace::writesValue(ev.kind) && s_.wanted.count({ev.obj, ev.value}))
      raiseReadMatter(t, ev.kind == EventKind::AtomicRmw ? p + 1 : p);
  }

  void raiseReadMatter(ThreadId t, uint32_t p) {
    const auto &te = idx_.threadEvents(t);
    while (s_.readMatter[t] < p) {
      EventId e = te[s_.readMatter[t]++];
      EventKind k = t_.events[e].kind;
      if (trace::readsValue(k) && !s_.preciseMatter.count(e))
        onReadMatters(e);
      else if (k == EventKind::TryFail &&
               idx_.posInThread(e) >= s_.tryfailMatter[t])
        onTryfailMatters(e);
    }
  }
  void raiseTryfailMatter(ThreadId t, uint32_t p) {
    const auto &te = idx_.threadEvents(t);
    while (s_.tryfailMatter[t] < p) {
      EventId e = te[s_.tryfailMatter[t]++];
      if (t_.events[e].kind == EventKind::TryFail &&
          idx_.posInThread(e) >= s_.readMatter[t])
        onTryfailMatters(e);
    }
  }

  /// A read whose value matters: every write that can feed it and is in
  /// the slice must be value-concrete (its earlier reads matter too), and
  /// the writes observed before it join the slice (eager).
  void onReadMatters(EventId r) {
    const Event &re = t_.events[r];
    int64_t v = idx_.readValue(r);
    s_.wanted.insert({re.obj, v});
    // A branch on r forces the only write of its value before it (a must
    // edge of the clocks): part of the past even without eager helpers.
    if (EventId w = MustHappenBefore::forcedWriter(idx_, r); w != kNone)
      needEvent(w);
    EventSpan ws = idx_.writesOfValue(re.obj, v);
    if (ws.empty())
      return;
    for (ThreadId u = 0; u < idx_.numThreads(); ++u) {
      auto [lo, hi] = threadRun(idx_, ws, u);
      if (lo == hi)
        continue;
      // The latest write of u in the slice makes all of u's earlier ones
      // value-relevant (program order).
      const EventId *it =
          std::lower_bound(lo, hi, s_.eventsIn(u), [&](EventId w, uint32_t n) {
            return idx_.posInThread(w) < n;
          });
      if (it != lo) {
        EventId w = it[-1];
        raiseReadMatter(u, t_.events[w].kind == EventKind::AtomicRmw
                               ? idx_.posInThread(w) + 1
                               : idx_.posInThread(w));
      }
      if (sl_.options().eager) {
        // The latest of u observed before r that may be in a witness.
        const EventId *e2 = std::lower_bound(lo, hi, r);
        while (e2 != lo && idx_.posInThread(e2[-1]) >= s_.limitPos[u])
          --e2;
        if (e2 != lo && !s_.hasEvent(idx_, e2[-1]))
          needEvent(e2[-1]);
      }
    }
  }

  /// A failed trylock that matters: the write-mode sections of other
  /// threads that held its lock before it (eager) join the slice.
  void onTryfailMatters(EventId f) {
    if (!sl_.options().eager)
      return;
    const Event &fe = t_.events[f];
    for (ThreadId u = 0; u < idx_.numThreads(); ++u) {
      if (u == fe.thread)
        continue;
      Span<uint32_t> secs = idx_.sectionsOf(fe.obj, u);
      auto it = std::lower_bound(secs.begin(), secs.end(), f,
                                 [&](uint32_t s, EventId v) {
                                   return idx_.sections()[s].acquire < v;
                                 });
      while (it != secs.begin()) {
        const LockSection &s = idx_.sections()[*--it];
        if (s.readMode || idx_.posInThread(s.acquire) >= s_.limitPos[u])
          continue;
        needEvent(s.acquire);
        break;
      }
    }
  }

  /// The posts and inits of a semaphore observed before a wait (eager).
  void eagerPosts(EventId w) {
    SymId sem = t_.events[w].obj;
    std::vector<EventId> latest(idx_.numThreads(), kNone);
    for (EventId e : idx_.semEvents(sem)) {
      if (e >= w)
        break;
      EventKind k = t_.events[e].kind;
      ThreadId u = t_.events[e].thread;
      if ((k == EventKind::SemPost || k == EventKind::SemInit) &&
          idx_.posInThread(e) < s_.limitPos[u])
        latest[u] = e;
    }
    for (EventId e : latest)
      if (e != kNone)
        needEvent(e);
  }

  /// A section open at the end of its thread's slice whose release may be
  /// in a witness, while another thread's section of the lock that was
  /// observed after that release is in the slice: the release joins.
  bool openSectionsRule() {
    bool grew = false;
    for (ThreadId u = 0; u < idx_.numThreads(); ++u) {
      for (uint32_t si : idx_.sectionsOpenAfter(u, s_.eventsIn(u))) {
        const LockSection &s1 = idx_.sections()[si];
        if (sl_.outsideRelease(s_, si) == kNone)
          continue;
        for (ThreadId v = 0; v < idx_.numThreads(); ++v) {
          if (v == u)
            continue;
          Span<uint32_t> secs = idx_.sectionsOf(s1.lock, v);
          uint32_t n = s_.eventsIn(v);
          auto it = std::lower_bound(
              secs.begin(), secs.end(), n, [&](uint32_t s, uint32_t m) {
                return idx_.posInThread(idx_.sections()[s].acquire) < m;
              });
          bool follows = false;
          while (it != secs.begin()) {
            const LockSection &s2 = idx_.sections()[*--it];
            if (s2.acquire < s1.release)
              break;
            if (!(s1.readMode && s2.readMode)) {
              follows = true;
              break;
            }
          }
          if (follows) {
            if (s1.releasedByWait)
              needHalf(s1.release);
            else
              needEvent(s1.release);
            grew = grew || !dirty_.empty();
            break;
          }
        }
      }
    }
    return grew;
  }

  const TraceIndex &idx_;
  const trace::Trace &t_;
  const Slicer &sl_;
  PairSlice &s_;
  std::vector<uint32_t> done_;
  std::vector<ThreadId> dirty_;
  bool pastCut_ = false;
};

Slicer::Slicer(const TraceIndex &idx, const MustHappenBefore &mhb,
               SliceOptions opts)
    : idx_(idx), mhb_(mhb), opts_(opts) {}

bool Slicer::slice(EventId a, EventId b, PairSlice *out) const {
  if (mhb_.orderedEitherWay(a, b))
    return false;
  PairSlice &s = *out;
  s = PairSlice{};
  s.a = a;
  s.b = b;
  s.endUnit.assign(idx_.numThreads(), kNone);
  // a and b end their threads' slices (they are the cut).
  for (EventId x : {a, b})
    s.endUnit[idx_.trace().events[x].thread] =
        eventUnit(idx_.posInThread(x)) + 1;
  // Nothing a or b must follow can be cut off: the cap is where events
  // that must follow a or b begin (docs/slicing.md).
  bool ok = build(s, {a, b}, {});
  RACEPREDICT_ASSERT(ok, "slice: a must-past event is capped");
  return true;
}

bool Slicer::sliceBlocked(const std::vector<BlockedAt> &blocked,
                          const std::vector<EventId> &alsoNeed,
                          PairSlice *out) const {
  PairSlice &s = *out;
  s = PairSlice{};
  s.blocked = blocked;
  s.endUnit.assign(idx_.numThreads(), kNone);
  std::vector<EventId> targets;
  const auto &events = idx_.trace().events;
  for (const BlockedAt &m : blocked) {
    uint32_t p = idx_.posInThread(m.event);
    // Up to the event; a wait or barrier has done its first half.
    s.endUnit[events[m.event].thread] =
        m.unforked                                  ? 0
        : trace::hasTwoHalves(events[m.event].kind) ? eventUnit(p)
                                                    : halfUnit(p);
    // A never-created member's first event follows its creator's blocking
    // event (a member's, before the fork): what must follow it must follow
    // that one, so it caps nothing more (a blocked join leaving 40,000
    // threads uncreated made this loop threads x members).
    if (!m.unforked)
      targets.push_back(m.event);
  }
  // A capped must-past here is no internal error: a blocked thread's
  // prefix must follow another's blocking event, so no cut has both.
  return build(s, targets, alsoNeed);
}

bool Slicer::build(PairSlice &s, const std::vector<EventId> &targets,
                   const std::vector<EventId> &alsoNeed) const {
  size_t nt = idx_.numThreads();
  s.frozen.assign(nt, 0);
  s.limitPos.assign(nt, 0);
  const auto &events = idx_.trace().events;
  for (ThreadId t = 0; t < nt; ++t) {
    const auto &te = idx_.threadEvents(t);
    uint32_t lim = static_cast<uint32_t>(te.size());
    for (EventId x : targets) {
      EventId f = mhb_.firstSuccessorIn(t, x);
      if (f != kNone)
        lim = std::min(lim, idx_.posInThread(f));
    }
    if (opts_.windowEnd != kNone) {
      auto it = std::lower_bound(te.begin(), te.end(), opts_.windowEnd);
      lim = std::min(lim, static_cast<uint32_t>(it - te.begin()));
    }
    if (opts_.windowBegin > 0) {
      auto it = std::lower_bound(te.begin(), te.end(), opts_.windowBegin);
      uint32_t n = static_cast<uint32_t>(it - te.begin());
      s.frozen[t] = 2 * n;
      // The first half of the thread's first free event ran before the
      // window if something before the window needed it: its notify, a
      // departure of its barrier generation, or another thread taking the
      // lock a wait releases (schedule_checker's expandWitness places it
      // there in the observed prefix).
      if (n < te.size()) {
        const Event &ev = events[te[n]];
        EventId from = n > 0                     ? te[n - 1]
                       : idx_.forkOf(t) != kNone ? idx_.forkOf(t)
                                                 : 0;
        bool before = false;
        if (ev.kind == EventKind::Wait) {
          before = ev.extra != kNone && ev.extra < opts_.windowBegin;
          for (ThreadId u = 0; u < nt && !before; ++u) {
            if (u == t)
              continue;
            Span<uint32_t> secs = idx_.sectionsOf(ev.aux, u);
            auto it = std::lower_bound(secs.begin(), secs.end(), from,
                                       [&](uint32_t si, EventId v) {
                                         return idx_.sections()[si].acquire < v;
                                       });
            before = it != secs.end() &&
                     idx_.sections()[*it].acquire < opts_.windowBegin;
          }
        } else if (ev.kind == EventKind::Barrier) {
          before =
              idx_.barrierGenerations()[idx_.barrierGeneration(te[n])].front() <
              opts_.windowBegin;
        }
        s.frozen[t] += before;
      }
    }
    s.limitPos[t] = lim;
  }
  // A target's thread ends at it: positions from the first unit it leaves
  // out (a wait's or barrier's event, whose first half may run) never are
  // in a witness.
  for (ThreadId t = 0; t < nt; ++t)
    if (s.endUnit[t] != kNone)
      s.limitPos[t] = s.endUnit[t] / 2;
  s.upto = s.frozen;
  s.readMatter.resize(nt);
  s.tryfailMatter.resize(nt);
  for (ThreadId t = 0; t < nt; ++t)
    s.readMatter[t] = s.tryfailMatter[t] = s.frozen[t] / 2;
  SliceBuilder sb(*this, s);
  for (ThreadId t = 0; t < nt; ++t)
    if (s.endUnit[t] != kNone)
      sb.needPast(sb.needUnits(t, s.endUnit[t]));
  sb.run();
  // Only the targets' own past decides feasibility; what `alsoNeed` asks
  // for may be cut by the caps (the encoding then finds it absent).
  bool ok = !sb.pastCut();
  for (EventId e : alsoNeed)
    sb.needEvent(e);
  sb.run();
  return ok;
}

void Slicer::extend(PairSlice &s, const std::vector<EventId> &events) const {
  SliceBuilder sb(*this, s);
  for (EventId e : events)
    sb.needEvent(e);
  sb.run();
}

} // namespace racepredict::analysis
