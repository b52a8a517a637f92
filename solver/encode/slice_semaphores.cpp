//===- solver/encode/slice_semaphores.cpp - Φ_sem over a slice, matched ---===//
//
// docs/semantics.md counts: a semwait before the cut needs init + posts
// before it − other waits before it ≥ 1. Over a slice (issue 17) this is
// encoded as a matching instead of a sum: every wait before the cut takes
// one token that comes before it — one of the initial count, of an init's
// value, or a post — and no token serves more waits than it holds. In a
// schedule, the count stays positive at every wait iff such a matching
// exists (hand out tokens greedily in schedule order; Hall's condition is
// exactly the count). The formula so stays in difference logic with
// Booleans (at-most-k by sequential counters), which Z3's difference-logic
// solver decides, where the pseudo-Boolean sums of the whole-trace encoding
// need its general arithmetic.
//
// Posts and waits outside the slice are after the cut: they serve no wait
// of the witness, and an escape stands for an outside post that could
// (docs/slicing.md, rule 4). Frozen ones (window mode) ran before every
// free wait: their net count is part of the initial tokens.
//
#include "racepredict/solver/slice_encoding.h"

#include <map>

namespace racepredict::solver {

using analysis::eventUnit;
using analysis::kNone;
using trace::Event;
using trace::EventKind;

void SliceEncoding::encodeSemaphores() {
  const auto &events = idx_.trace().events;
  std::map<analysis::SymId, std::vector<EventId>> waitsBySem;
  for (ThreadId t = 0; t < idx_.numThreads(); ++t) {
    const auto &te = idx_.threadEvents(t);
    for (uint32_t p = s_.frozen[t] / 2; p < s_.eventsIn(t); ++p) {
      EventId w = te[p];
      if (events[w].kind == EventKind::SemWait && w != s_.a && w != s_.b &&
          status(t, eventUnit(p)) == Status::Free)
        waitsBySem[events[w].obj].push_back(w);
    }
  }
  for (auto &[sem, waits] : waitsBySem) {
    // Token holders: the initial count (no order), then each init and post
    // of the slice, with how many waits each can serve.
    struct Holder {
      EventId src; ///< kNone: the initial tokens
      int64_t tokens;
      std::vector<F> users;
    };
    std::vector<Holder> holders{{kNone, idx_.semInitialCount(sem), {}}};
    for (EventId e : idx_.semEvents(sem)) {
      const Event &ev = events[e];
      Status st = eventStatus(e);
      if (st == Status::Absent)
        continue;
      int64_t c = ev.kind == EventKind::SemInit   ? ev.value
                  : ev.kind == EventKind::SemPost ? 1
                                                  : -1;
      if (st == Status::Frozen)
        holders[0].tokens += c;
      else if (c > 0)
        holders.push_back({e, c, {}});
    }
    for (EventId w : waits) {
      std::vector<F> options;
      for (Holder &h : holders) {
        F bef = h.src == kNone ? (h.tokens > 0 ? pool_.top() : pool_.bottom())
                               : beforeEv(h.src, w);
        if (bef == pool_.bottom())
          continue;
        F x = pool_.boolVar(pool_.newBoolVar());
        add(pool_.implies(x, bef));
        options.push_back(x);
        h.users.push_back(x);
      }
      std::vector<EventId> outside = slicer_.outsidePosts(s_, w);
      if (!outside.empty())
        options.push_back(pool_.boolVar(escapeFor(std::move(outside))));
      ThreadId t = events[w].thread;
      add(pool_.implies(in(t, eventUnit(idx_.posInThread(w))),
                        pool_.mkOr(options)));
    }
    for (const Holder &h : holders)
      add(pool_.atMost(h.users, h.tokens));
  }
}

} // namespace racepredict::solver
