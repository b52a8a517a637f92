//===- test/support/deadlock_enumerator.cpp - Brute-force deadlocks -------===//
//
// docs/semantics.md, "Deadlocks", rule by rule on the explicit states of
// model_explorer.h. A set D of unfinished threads is a deadlock in a state
// that has not executed the process's exit when each member is blocked for
// good: never created while its creator is in D; or, created (first half
// done for a wait or barrier) and not enabled, and
//   acq/racq/wait: a thread holding the lock against it is in D or
//                  finished for good;
//   wait:          its notify has not run and D is quiescent;
//   join u:        u is in D;
//   semwait:       the count is 0 and D is quiescent;
//   barrier:       fewer threads wait at the barrier than its count, and D
//                  is quiescent;
// where D is quiescent when every other thread has finished for good
// (finished, its trace complete, and not the thread whose end exits).
//
#include "deadlock_enumerator.h"

#include "model_explorer.h"

#include <algorithm>

namespace racepredict::testsupport {

namespace {

class DeadlockRules {
public:
  DeadlockRules(const analysis::TraceIndex &idx, const ModelExplorer &m)
      : idx_(idx), t_(idx.trace()), m_(m), nt_(idx.numThreads()) {
    const auto &ev = t_.events;
    if (!ev.empty() && ev.back().kind == EventKind::End &&
        hasBegin(ev.back().thread))
      exit_ = static_cast<EventId>(ev.size() - 1);
    for (ThreadId u = 0; u < nt_; ++u) {
      const auto &te = idx.threadEvents(u);
      bool ends = !te.empty() && ev[te.back()].kind == EventKind::End;
      bool complete = ends || !hasBegin(u);
      bool exits = !te.empty() && te.back() == exit_;
      stays_.push_back(complete && !exits);
    }
  }

  bool exited(const State &s) const {
    return exit_ != trace::kNone && m_.executed(s, exit_);
  }

  /// Whether every thread in `d` (a bit set) is blocked for good in `s`.
  bool deadlock(const State &s, uint32_t d) const {
    for (ThreadId t = 0; t < nt_; ++t)
      if ((d >> t & 1) && !blockedForGood(s, d, t))
        return false;
    return true;
  }

private:
  bool hasBegin(ThreadId u) const {
    for (EventId e : idx_.threadEvents(u))
      if (t_.events[e].kind == EventKind::Begin)
        return true;
    return false;
  }

  bool finishedForGood(const State &s, ThreadId u) const {
    return m_.next(s, u) == trace::kNone && stays_[u];
  }

  bool quiescent(const State &s, uint32_t d) const {
    for (ThreadId u = 0; u < nt_; ++u)
      if (!(d >> u & 1) && !finishedForGood(s, u))
        return false;
    return true;
  }

  bool blockedForGood(const State &s, uint32_t d, ThreadId t) const {
    EventId e = m_.next(s, t);
    if (e == trace::kNone)
      return false;
    const Event &ev = t_.events[e];
    EventId fork = idx_.forkOf(t);
    if (fork != trace::kNone && !m_.executed(s, fork))
      return d >> t_.events[fork].thread & 1;
    bool twoHalves =
        ev.kind == EventKind::Wait || ev.kind == EventKind::Barrier;
    if ((twoHalves && !s.half[t]) || m_.enabled(s, t))
      return false;
    if (trace::isTryAcquire(ev)) // it fails instead of waiting
      return false;
    switch (ev.kind) {
    case EventKind::Acquire:
    case EventKind::RAcquire:
    case EventKind::Wait: {
      SymId lock = ev.kind == EventKind::Wait ? ev.aux : ev.obj;
      for (const Hold &h : s.holds[lock])
        if (h.thread != t && (h.write || ev.kind != EventKind::RAcquire) &&
            ((d >> h.thread & 1) || finishedForGood(s, h.thread)))
          return true;
      return ev.kind == EventKind::Wait && ev.extra != trace::kNone &&
             !m_.executed(s, ev.extra) && quiescent(s, d);
    }
    case EventKind::Join:
      return d >> ev.obj & 1;
    case EventKind::SemWait:
      return s.sem[ev.obj] <= 0 && quiescent(s, d);
    case EventKind::Barrier: {
      uint32_t waiting = 0;
      for (ThreadId u = 0; u < nt_; ++u) {
        EventId x = m_.next(s, u);
        if (x == trace::kNone || t_.events[x].kind != EventKind::Barrier ||
            t_.events[x].obj != ev.obj || !s.half[u])
          continue;
        const auto &gen = idx_.barrierGenerations()[idx_.barrierGeneration(x)];
        bool full = std::all_of(gen.begin(), gen.end(), [&](EventId y) {
          return m_.firstHalfDone(s, y);
        });
        waiting += !full;
      }
      return waiting < ev.aux && quiescent(s, d);
    }
    default:
      return false;
    }
  }

  const analysis::TraceIndex &idx_;
  const trace::Trace &t_;
  const ModelExplorer &m_;
  size_t nt_;
  EventId exit_ = trace::kNone;
  std::vector<char> stays_; ///< may stay finished in a deadlock
};

} // namespace

DeadlockEnumeration enumerateDeadlocks(const analysis::TraceIndex &idx,
                                       size_t maxStates) {
  ModelExplorer m(idx);
  DeadlockRules rules(idx, m);
  DeadlockEnumeration out;
  size_t nt = idx.numThreads();
  out.states =
      m.explore(maxStates, &out.truncated,
                [&](const State &s, const ModelExplorer::PathFn &path) {
                  if (rules.exited(s))
                    return;
                  uint32_t unfinished = 0;
                  for (ThreadId t = 0; t < nt; ++t)
                    if (m.next(s, t) != trace::kNone)
                      unfinished |= 1u << t;
                  // Every non-empty subset of the unfinished threads.
                  for (uint32_t d = unfinished; d; d = (d - 1) & unfinished) {
                    if (!rules.deadlock(s, d))
                      continue;
                    std::vector<EventId> sig;
                    for (ThreadId t = 0; t < nt; ++t)
                      if (d >> t & 1)
                        sig.push_back(m.next(s, t));
                    std::sort(sig.begin(), sig.end());
                    if (!out.deadlocks.count(sig))
                      out.deadlocks.emplace(sig, path());
                  }
                });
  return out;
}

} // namespace racepredict::testsupport
