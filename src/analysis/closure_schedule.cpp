//===- analysis/closure_schedule.cpp - Running a closure in observed order ===//
//
// The closure's events run greedily in observed order, each open section
// after every other section of its lock, each read that matters after its
// writer, on the model's semantics: a step is applied only when
// ModelState::blocked allows it, so the schedule is the checker's replay.
//
#include "closure_internal.h"

#include "racepredict/analysis/model_state.h"

namespace racepredict::analysis {

std::optional<WitnessSchedule>
ClosureWitnessFinder::schedule(const Closure &c,
                               const ObservedPrefix::Checkpoint *start) const {
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
    for (uint32_t si : sectionsFrom(idx_, lock, c.from)) {
      const LockSection &s = idx_.sections()[si];
      if (s.thread != self &&
          eventOf(idx_.posInThread(s.acquire)) < c.units[s.thread] &&
          !st.executed(s.acquire))
        return false;
    }
    return true;
  };
  ModelState st = start ? start->state : ModelState(idx_);
  // The checkpoint's steps are shared, not copied (issue 17).
  WitnessSchedule out =
      start ? prefix_->steps(start->steps) : WitnessSchedule();
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

} // namespace racepredict::analysis
