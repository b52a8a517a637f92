//===- analysis/sync_needs.h - What a synchronisation event needs first ---===//
//
// The events another thread must have run before an event can be scheduled
// in any witness of the model (docs/semantics.md), beyond its own thread's
// prefix and fork: the rules every closure over "what a witness must run"
// applies -- the pair slicer (pair_slice.cpp), the reads-from-preserving
// closure (closure_witness.cpp) and the forced-writer refutation
// (forced_writers.cpp) -- each in its own units (events or halves).
//
#pragma once

#include "racepredict/analysis/trace_index.h"

namespace racepredict::analysis {

/// Calls, for the event `e`: `wholeThread(t)` for a join (every event of the
/// joined thread); `event(q)` for the signal a wait returns from and the
/// channel events a send or receive follows (q runs whole); `firstHalf(w)`
/// for the waits a signal wakes and the other arrivals of a barrier's
/// generation (their first halves, the arrivals, run before it). Other
/// kinds need nothing here (semaphores and branches are each caller's).
template <typename WholeThread, typename Event, typename FirstHalf>
void forEachSyncNeed(const TraceIndex &idx, EventId e, WholeThread wholeThread,
                     Event event, FirstHalf firstHalf) {
  const trace::Event &ev = idx.trace().events[e];
  switch (ev.kind) {
  case trace::EventKind::Join:
    wholeThread(ev.obj);
    break;
  case trace::EventKind::Wait:
    if (ev.extra != kNone)
      event(ev.extra);
    break;
  case trace::EventKind::Send:
  case trace::EventKind::Recv:
    for (EventId q : idx.channelPredecessors(e))
      event(q);
    break;
  case trace::EventKind::Signal:
  case trace::EventKind::Broadcast:
    for (EventId w : idx.wokenBy(e))
      firstHalf(w);
    break;
  case trace::EventKind::Barrier:
    for (EventId m : idx.barrierGenerations()[idx.barrierGeneration(e)])
      if (m != e)
        firstHalf(m);
    break;
  default:
    break;
  }
}

} // namespace racepredict::analysis
