//===- analysis/mhb.cpp - Must-happen-before vector clocks ----------------===//
#include "racepredict/analysis/mhb.h"

#include <algorithm>
#include <map>

namespace racepredict::analysis {

using trace::Event;
using trace::EventKind;

MustHappenBefore::MustHappenBefore(const TraceIndex &idx)
    : idx_(idx), nt_(idx.numThreads()) {
  const trace::Trace &t = idx.trace();
  size_t n = t.events.size();
  clocks_.assign(n * nt_, 0);
  // The observed order is a linearisation of all must edges (each edge's
  // source was observed first), so one pass in trace order suffices. A
  // barrier departure joins the program-order predecessors of every member
  // of its generation (their arrivals precede it).
  auto join = [&](uint32_t *dst, const uint32_t *src) {
    for (size_t i = 0; i < nt_; ++i)
      dst[i] = std::max(dst[i], src[i]);
  };
  // Value-forced edges (control flow, docs/semantics.md): a branch can only
  // run if the reads it depends on see their observed values. When exactly
  // one write in the whole trace stores the value a read r observed, and
  // the initial value differs, that write must precede r whenever the
  // branch runs: an edge writer → branch. Writers precede r in the trace,
  // so the one-pass clock computation still sees them in time.
  std::map<std::pair<SymId, int64_t>, EventId> writer; // kNone: several
  for (EventId e = 0; e < n; ++e) {
    const Event &ev = t.events[e];
    if (!trace::writesValue(ev.kind))
      continue;
    auto [it, fresh] = writer.emplace(std::make_pair(ev.obj, ev.value), e);
    if (!fresh)
      it->second = kNone;
  }
  auto forcedWriter = [&](EventId r) -> EventId {
    const Event &re = t.events[r];
    int64_t v = re.kind == EventKind::AtomicRmw ? t.rmwReadValue(re) : re.value;
    auto init = idx.initialValue(re.obj);
    if (init && *init == v)
      return kNone;
    auto it = writer.find({re.obj, v});
    if (it == writer.end() || it->second == kNone || it->second >= r)
      return kNone; // none (never concrete), several, or not observed first
    return it->second;
  };
  std::vector<std::vector<EventId>> pendingReads(nt_);
  for (EventId e = 0; e < n; ++e) {
    const Event &ev = t.events[e];
    uint32_t *c = &clocks_[e * nt_];
    EventId prev = idx.poPrev(e);
    if (prev != kNone)
      join(c, clock(prev));
    else if (EventId f = idx.forkOf(ev.thread); f != kNone && f < e)
      join(c, clock(f));
    c[ev.thread] = idx.posInThread(e) + 1;
    switch (ev.kind) {
    case EventKind::Join: {
      const auto &child = idx.threadEvents(ev.obj);
      if (!child.empty() && child.back() < e)
        join(c, clock(child.back()));
      break;
    }
    case EventKind::Wait:
      if (ev.extra != kNone && ev.extra < e)
        join(c, clock(ev.extra));
      break;
    case EventKind::Branch: {
      auto joinWriter = [&](EventId r) {
        EventId w = forcedWriter(r);
        if (w != kNone)
          join(c, clock(w));
      };
      if (t.hasDeps(ev)) {
        auto [b, end] = t.deps(ev);
        for (; b != end; ++b)
          joinWriter(*b);
      } else {
        // Reads before the previous plain branch were handled there.
        for (EventId r : pendingReads[ev.thread])
          joinWriter(r);
        pendingReads[ev.thread].clear();
      }
      break;
    }
    case EventKind::Barrier:
      for (EventId m : idx.barrierGenerations()[idx.barrierGeneration(e)]) {
        EventId mp = idx.poPrev(m);
        if (m != e && mp != kNone && mp < e)
          join(c, clock(mp));
      }
      break;
    default:
      break;
    }
    if (trace::readsValue(ev.kind))
      pendingReads[ev.thread].push_back(e);
  }
}

EventId MustHappenBefore::firstSuccessorIn(ThreadId t, EventId x) const {
  const auto &te = idx_.threadEvents(t);
  ThreadId tx = idx_.trace().events[x].thread;
  uint32_t need = idx_.posInThread(x) + 1;
  // Clocks grow along program order: binary search for the first event of
  // t whose clock has seen x.
  auto it = std::partition_point(te.begin(), te.end(), [&](EventId e) {
    return clock(e)[tx] < need || e == x;
  });
  return it == te.end() ? kNone : *it;
}

bool MustHappenBefore::ordered(EventId a, EventId b) const {
  if (a == b)
    return false;
  const trace::Trace &t = idx_.trace();
  ThreadId ta = t.events[a].thread;
  // a → b iff b's clock has seen a's position in a's thread.
  return clock(b)[ta] >= idx_.posInThread(a) + 1;
}

} // namespace racepredict::analysis
