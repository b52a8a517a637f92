//===- analysis/mhb.cpp - Must-happen-before vector clocks ----------------===//
#include "racepredict/analysis/mhb.h"

#include <algorithm>

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
  }
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
