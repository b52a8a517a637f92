//===- analysis/closure_internal.h - The closure of a pair (private) ------===//
//
// Shared by closure_witness.cpp (building the closure) and
// closure_schedule.cpp (its greedy schedule). Units as in pair_slice.h:
// unit 2p is the first half of the event at position p, 2p+1 the event.
//
#pragma once

#include "racepredict/analysis/closure_witness.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace racepredict::analysis {

inline uint32_t halfOf(uint32_t pos) { return 2 * pos; }
inline uint32_t eventOf(uint32_t pos) { return 2 * pos + 1; }

/// The sections of `lock` acquired at or after `from`.
inline Span<uint32_t> sectionsFrom(const TraceIndex &idx, SymId lock,
                                   EventId from) {
  Span<uint32_t> all = idx.sectionsOf(lock); // by acquire
  const uint32_t *it = std::lower_bound(
      all.begin(), all.end(), from,
      [&](uint32_t s, EventId v) { return idx.sections()[s].acquire < v; });
  return {it, all.end()};
}

/// The last write of r's location before r in the trace (kNone: r reads
/// the initial value).
inline EventId observedWriter(const TraceIndex &idx, EventId r) {
  EventSpan ws = idx.writesTo(idx.trace().events[r].obj);
  const EventId *it = std::lower_bound(ws.begin(), ws.end(), r);
  return it == ws.begin() ? kNone : it[-1];
}

struct ClosureWitnessFinder::Closure {
  EventId a, b;
  /// Events before it ran in observed order (a checkpoint's end, or 0).
  EventId from = 0;
  std::vector<uint32_t> base;  ///< per thread: events before `from`
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
      for (uint32_t si : sectionsFrom(idx, lock, from)) {
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
        // Reads before `from` saw writers before it, outside any open
        // section (their acquires come later).
        for (uint32_t p = base[t];
             p < std::min<uint32_t>(until[t], readMatter[t]); ++p)
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

} // namespace racepredict::analysis
