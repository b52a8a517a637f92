//===- solver/encode/race_encoding.cpp - Order and lock constraints -------===//
#include "racepredict/solver/race_encoding.h"

#include <algorithm>
#include <tuple>

namespace racepredict::solver {

using analysis::kNone;
using analysis::LockSection;
using trace::Event;
using trace::EventKind;

MaximalEncoding::MaximalEncoding(const TraceIndex &idx, FormulaPool &pool)
    : idx_(idx), pool_(pool) {
  const auto &events = idx.trace().events;
  OrderVar next = static_cast<OrderVar>(events.size());
  half_.assign(events.size(), kNone);
  for (EventId e = 0; e < events.size(); ++e)
    if (events[e].kind == EventKind::Wait ||
        events[e].kind == EventKind::Barrier)
      half_[e] = next++;
  cut_ = next;
  encodeProgramOrder();
  encodeSyncOrder();
  encodeLocks();
  encodeSemaphores();
  encodeControlFlow();
}

OrderVar MaximalEncoding::halfNode(EventId e) const { return half_[e]; }

OrderVar MaximalEncoding::releaseNode(const LockSection &s) const {
  return s.releasedByWait ? half_[s.release] : s.release;
}

// Φ_mhb, program order: every node of a thread before its successor; a
// wait's release half / a barrier's arrival half sits just before it.
void MaximalEncoding::encodeProgramOrder() {
  for (ThreadId t = 0; t < idx_.numThreads(); ++t) {
    OrderVar prev = kNone;
    for (EventId e : idx_.threadEvents(t)) {
      if (half_[e] != kNone) {
        if (prev != kNone)
          add(Label::Po, pool_.lt(prev, half_[e]));
        prev = half_[e];
      }
      if (prev != kNone)
        add(Label::Po, pool_.lt(prev, e));
      prev = e;
    }
  }
}

// Φ_mhb across threads: fork/join, notify → wait, barrier generations,
// channels.
void MaximalEncoding::encodeSyncOrder() {
  const auto &events = idx_.trace().events;
  for (ThreadId u = 0; u < idx_.numThreads(); ++u) {
    EventId f = idx_.forkOf(u);
    const auto &te = idx_.threadEvents(u);
    if (f == kNone || te.empty())
      continue;
    OrderVar first = half_[te.front()] != kNone ? half_[te.front()] : te[0];
    add(Label::Fork, pool_.lt(f, first));
  }
  for (EventId e = 0; e < events.size(); ++e) {
    const Event &ev = events[e];
    if (ev.kind == EventKind::Join) {
      const auto &child = idx_.threadEvents(ev.obj);
      if (!child.empty())
        add(Label::Join, pool_.lt(child.back(), e));
    } else if (ev.kind == EventKind::Wait && ev.extra != kNone) {
      add(Label::Notify, pool_.lt(half_[e], ev.extra));
      add(Label::Notify, pool_.lt(ev.extra, e));
    } else if (trace::isChannelEvent(ev.kind)) {
      for (EventId p : idx_.channelPredecessors(e))
        add(Label::Channel, pool_.lt(p, e));
    }
  }
  for (const auto &gen : idx_.barrierGenerations())
    for (EventId arr : gen)
      for (EventId dep : gen)
        if (arr != dep)
          add(Label::Barrier, pool_.lt(half_[arr], dep));
}

// Φ_lock: two sections of one lock in different threads, not both read
// mode, do not overlap among the events before the cut. The `≥ C` disjuncts
// free sections acquired after the cut (docs/semantics.md): without them a
// witness would need a full extension of the schedule, which a later
// deadlock can forbid although the race is real.
void MaximalEncoding::encodeLocks() {
  const auto &secs = idx_.sections();
  size_t i = 0;
  while (i < secs.size()) {
    size_t j = i;
    while (j < secs.size() && secs[j].lock == secs[i].lock)
      ++j;
    for (size_t x = i; x < j; ++x)
      for (size_t y = x + 1; y < j; ++y) {
        const LockSection &s1 = secs[x], &s2 = secs[y];
        if (s1.thread == s2.thread || (s1.readMode && s2.readMode))
          continue;
        std::vector<F> alts{out(s1.acquire), out(s2.acquire)};
        if (s1.release != kNone)
          alts.push_back(pool_.lt(releaseNode(s1), s2.acquire));
        if (s2.release != kNone)
          alts.push_back(pool_.lt(releaseNode(s2), s1.acquire));
        add(Label::Lock, pool_.mkOr(alts));
      }
    i = j;
  }
}

// Φ_sem: a semwait before the cut finds a positive count. Counting is not
// difference logic; only traces with semaphores pay for it.
void MaximalEncoding::encodeSemaphores() {
  const auto &events = idx_.trace().events;
  std::unordered_map<SymId, std::vector<EventId>> bySem;
  for (EventId e = 0; e < events.size(); ++e) {
    EventKind k = events[e].kind;
    if (k == EventKind::SemInit || k == EventKind::SemPost ||
        k == EventKind::SemWait)
      bySem[events[e].obj].push_back(e);
  }
  for (auto &[sem, evs] : bySem) {
    std::vector<EventId> waits;
    for (EventId e : evs)
      if (events[e].kind == EventKind::SemWait)
        waits.push_back(e);
    for (EventId w : waits) {
      std::vector<F> kids;
      std::vector<int64_t> coeffs;
      for (EventId e : evs) {
        if (e == w)
          continue;
        kids.push_back(pool_.lt(e, w));
        EventKind k = events[e].kind;
        coeffs.push_back(k == EventKind::SemInit   ? events[e].value
                         : k == EventKind::SemPost ? 1
                                                   : -1);
      }
      int64_t need = 1 - idx_.semInitialCount(sem);
      add(Label::Sem, pool_.implies(in(w), pool_.pbGe(kids, coeffs, need)));
    }
    // Distinct waits: breaking an order tie can then never change a count.
    for (size_t x = 0; x < waits.size(); ++x)
      for (size_t y = x + 1; y < waits.size(); ++y)
        if (events[waits[x]].thread != events[waits[y]].thread)
          add(Label::Sem, pool_.mkOr({pool_.lt(waits[x], waits[y]),
                                      pool_.lt(waits[y], waits[x])}));
  }
}

F MaximalEncoding::raceQuery(EventId a, EventId b,
                             const analysis::MustHappenBefore &mhb) {
  std::vector<F> conj{pool_.eq(a, cut_), pool_.eq(b, cut_)};
  for (ThreadId t = 0; t < idx_.numThreads(); ++t) {
    const auto &te = idx_.threadEvents(t);
    // Must-past: a and b themselves (clock entries of their own threads)
    // are excluded; program order carries `in` to everything before.
    uint32_t past = std::max(mhb.entry(a, t), mhb.entry(b, t));
    for (EventId x : {a, b})
      if (idx_.trace().events[x].thread == t)
        past = std::min(past, idx_.posInThread(x));
    if (past > 0 && te[past - 1] != a && te[past - 1] != b)
      conj.push_back(in(te[past - 1]));
    EventId fa = mhb.firstSuccessorIn(t, a), fb = mhb.firstSuccessorIn(t, b);
    EventId first = std::min(fa, fb); // kNone is the largest id
    // Only the event (return/departure half) is out: the must edge into
    // it may be a notify → wait return or arrivals → departure edge, which
    // does not constrain the release/arrival half (it may be in σ). When
    // the edge comes through program order, `first` is the predecessor.
    if (first != kNone && first != a && first != b)
      conj.push_back(out(first));
  }
  return pool_.mkAnd(conj);
}

std::vector<Step> MaximalEncoding::witness(const std::vector<int64_t> &order,
                                           EventId a, EventId b) const {
  const auto &events = idx_.trace().events;
  int64_t c = order[cut_];
  // (order value, thread, event, half first) — ties only between nodes no
  // constraint relates, so any tie-break keeps every satisfied atom.
  std::vector<std::tuple<int64_t, ThreadId, EventId, int>> nodes;
  for (EventId e = 0; e < events.size(); ++e) {
    if (e == a || e == b)
      continue;
    if (half_[e] != kNone && order[half_[e]] < c)
      nodes.emplace_back(order[half_[e]], events[e].thread, e, 0);
    if (order[e] < c)
      nodes.emplace_back(order[e], events[e].thread, e, 1);
  }
  std::sort(nodes.begin(), nodes.end());
  std::vector<Step> steps;
  for (auto &[o, t, e, full] : nodes)
    steps.push_back({e, full == 0});
  steps.push_back({a, false});
  steps.push_back({b, false});
  return steps;
}

} // namespace racepredict::solver
