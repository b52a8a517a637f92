//===- analysis/slice_outside.cpp - Helpers outside a slice (escapes) -----===//
//
// What an escape literal stands for (docs/slicing.md, "Escapes"): the
// helpers of a read, a semaphore wait, a failed trylock or an open section
// that could be in a witness but are not in the slice. At most one per
// thread, the earliest: taking it takes all earlier ones of its thread.
//
#include "racepredict/analysis/pair_slice.h"

#include "slice_internal.h"

namespace racepredict::analysis {

using trace::Event;
using trace::EventKind;

namespace {

/// The earliest write per thread u in `ws` (sorted by thread, then index)
/// with position in [eventsIn(u), bound(u)).
template <typename Bound>
std::vector<EventId> earliestOutside(const TraceIndex &idx, const PairSlice &s,
                                     EventSpan ws, Bound bound) {
  std::vector<EventId> out;
  if (ws.empty())
    return out;
  for (ThreadId u = 0; u < idx.numThreads(); ++u) {
    auto [lo, hi] = threadRun(idx, ws, u);
    const EventId *it =
        std::lower_bound(lo, hi, s.eventsIn(u), [&](EventId w, uint32_t n) {
          return idx.posInThread(w) < n;
        });
    if (it != hi && idx.posInThread(*it) < bound(u))
      out.push_back(*it);
  }
  return out;
}

} // namespace

std::vector<EventId> Slicer::outsideFeeders(const PairSlice &s,
                                            EventId r) const {
  const Event &re = idx_.trace().events[r];
  EventSpan ws = idx_.writesOfValue(re.obj, idx_.readValue(r));
  return earliestOutside(idx_, s, ws, [&](ThreadId u) {
    uint32_t hi = s.limitPos[u];
    if (u == re.thread)
      return std::min(hi, idx_.posInThread(r)); // not after r in po
    // Not a write that must follow r.
    EventId f = mhb_.firstSuccessorIn(u, r);
    return f == kNone ? hi : std::min(hi, idx_.posInThread(f));
  });
}

std::vector<EventId> Slicer::outsidePosts(const PairSlice &s, EventId w) const {
  std::vector<EventId> out;
  const auto &events = idx_.trace().events;
  std::vector<char> seen(idx_.numThreads(), 0);
  for (EventId e : idx_.semEvents(events[w].obj)) {
    EventKind k = events[e].kind;
    ThreadId u = events[e].thread;
    if (seen[u] || (k != EventKind::SemPost && k != EventKind::SemInit))
      continue;
    uint32_t p = idx_.posInThread(e);
    if (p < s.eventsIn(u) || p >= s.limitPos[u] || mhb_.ordered(w, e))
      continue;
    seen[u] = 1;
    out.push_back(e);
  }
  return out;
}

std::vector<EventId> Slicer::outsideHolders(const PairSlice &s,
                                            EventId f) const {
  std::vector<EventId> out;
  const Event &fe = idx_.trace().events[f];
  for (ThreadId u = 0; u < idx_.numThreads(); ++u) {
    if (u == fe.thread)
      continue;
    Span<uint32_t> secs = idx_.sectionsOf(fe.obj, u);
    auto it = std::lower_bound(
        secs.begin(), secs.end(), s.eventsIn(u), [&](uint32_t si, uint32_t n) {
          return idx_.posInThread(idx_.sections()[si].acquire) < n;
        });
    for (; it != secs.end(); ++it) {
      const LockSection &sec = idx_.sections()[*it];
      if (sec.readMode)
        continue;
      if (idx_.posInThread(sec.acquire) < s.limitPos[u] &&
          !mhb_.ordered(f, sec.acquire))
        out.push_back(sec.acquire);
      break;
    }
  }
  return out;
}

EventId Slicer::outsideRelease(const PairSlice &s, uint32_t sec) const {
  const LockSection &ls = idx_.sections()[sec];
  if (ls.release == kNone)
    return kNone;
  uint32_t p = idx_.posInThread(ls.release);
  // A wait releases in its first half.
  uint32_t unit = ls.releasedByWait ? halfUnit(p) : eventUnit(p);
  if (unit >= s.cap(idx_, ls.thread) || unit < s.upto[ls.thread])
    return kNone;
  return ls.release;
}

} // namespace racepredict::analysis
