//===- analysis/lock_cycles.cpp - Cycles of the lock nesting graph --------===//
#include "racepredict/analysis/lock_cycles.h"

#include <algorithm>
#include <functional>
#include <map>

namespace racepredict::analysis {

using trace::Event;
using trace::EventKind;

namespace {

struct Edge {
  SymId from, to; ///< held lock, requested lock
  ThreadId thread;
  LockRequest req;
};

/// A request can be blocked by the next thread's held section: any mode
/// blocks `acq`; only write mode blocks `racq`.
bool blocks(const TraceIndex &idx, EventId request, uint32_t heldSection) {
  const Event &r = idx.trace().events[request];
  const LockSection &s = idx.sections()[heldSection];
  return r.kind == EventKind::Acquire || !s.readMode;
}

/// Drops cycles no schedule can reach. Two requests ordered by
/// must-happen-before: the later one's thread has executed the earlier
/// request's successor... precisely, an acquire has only program-order (and
/// fork) predecessors, so `ri <mhb rj` puts ri before rj's predecessor,
/// which a deadlocked schedule has executed. A gate lock held at every
/// request, in write mode by at least one: two threads would hold it.
bool reachable(const TraceIndex &idx, const MustHappenBefore &mhb,
               const std::vector<LockRequest> &reqs, LockCycleStats *stats) {
  for (size_t i = 0; i < reqs.size(); ++i)
    for (size_t j = i + 1; j < reqs.size(); ++j)
      if (mhb.orderedEitherWay(reqs[i].request, reqs[j].request)) {
        ++stats->filteredMhb;
        return false;
      }
  std::map<SymId, std::pair<size_t, bool>> held; // lock -> (count, any write)
  for (const LockRequest &r : reqs) {
    std::vector<SymId> seen;
    for (uint32_t s : idx.sectionsHolding(r.request)) {
      const LockSection &ls = idx.sections()[s];
      if (std::find(seen.begin(), seen.end(), ls.lock) != seen.end())
        continue;
      seen.push_back(ls.lock);
      auto &h = held[ls.lock];
      h.first++;
      h.second = h.second || !ls.readMode;
    }
  }
  for (auto &[lock, h] : held)
    if (h.first == reqs.size() && h.second) {
      ++stats->filteredGuard;
      return false;
    }
  return true;
}

} // namespace

std::vector<LockCycle> findLockCycles(const TraceIndex &idx,
                                      const MustHappenBefore &mhb,
                                      const LockCycleOptions &opts,
                                      LockCycleStats *stats) {
  const auto &events = idx.trace().events;
  std::vector<Edge> edges;
  for (EventId e = 0; e < events.size(); ++e) {
    const Event &ev = events[e];
    if (ev.kind != EventKind::Acquire && ev.kind != EventKind::RAcquire)
      continue;
    for (uint32_t s : idx.sectionsHolding(e)) {
      const LockSection &ls = idx.sections()[s];
      if (ls.lock != ev.obj)
        edges.push_back({ls.lock, ev.obj, ev.thread, {e, s}});
    }
  }
  stats->edges = edges.size();
  std::map<SymId, std::vector<size_t>> out; // from-lock -> edges
  for (size_t i = 0; i < edges.size(); ++i)
    out[edges[i].from].push_back(i);

  std::vector<LockCycle> cycles;
  std::map<std::vector<trace::SrcId>, uint32_t> groups;
  std::vector<size_t> path;
  std::vector<ThreadId> threads;
  std::vector<SymId> locks;
  // Depth-first from each start lock s, visiting only locks > s so that
  // every cycle is found once (from its smallest lock).
  std::function<void(SymId, SymId)> dfs = [&](SymId start, SymId at) {
    auto it = out.find(at);
    if (it == out.end() || stats->truncated)
      return;
    for (size_t ei : it->second) {
      const Edge &ed = edges[ei];
      if (std::find(threads.begin(), threads.end(), ed.thread) != threads.end())
        continue;
      path.push_back(ei);
      threads.push_back(ed.thread);
      if (ed.to == start && path.size() >= 2) {
        ++stats->cycles;
        // Edge i: thread holds from(i) = to(i-1), requests to(i). So the
        // request of edge i waits for edge i+1's held section.
        std::vector<LockRequest> reqs;
        bool ok = true;
        for (size_t k = 0; k < path.size(); ++k) {
          const Edge &cur = edges[path[k]];
          const Edge &nxt = edges[path[(k + 1) % path.size()]];
          ok = ok && blocks(idx, cur.req.request, nxt.req.held);
          reqs.push_back(cur.req);
        }
        if (ok && (!opts.filters || reachable(idx, mhb, reqs, stats))) {
          // Canonical signature: request source locations, rotated to
          // start at the smallest.
          std::vector<trace::SrcId> sig;
          for (const auto &r : reqs)
            sig.push_back(events[r.request].src);
          std::rotate(sig.begin(), std::min_element(sig.begin(), sig.end()),
                      sig.end());
          auto g = groups.emplace(sig, static_cast<uint32_t>(groups.size()));
          cycles.push_back({std::move(reqs), g.first->second});
          if (opts.maxCycles && cycles.size() >= opts.maxCycles)
            stats->truncated = true;
        }
      } else if (ed.to > start &&
                 std::find(locks.begin(), locks.end(), ed.to) == locks.end() &&
                 path.size() < idx.numThreads()) {
        locks.push_back(ed.to);
        dfs(start, ed.to);
        locks.pop_back();
      }
      path.pop_back();
      threads.pop_back();
      if (stats->truncated)
        return;
    }
  };
  for (auto &[lock, es] : out) {
    locks = {lock};
    dfs(lock, lock);
  }
  return cycles;
}

} // namespace racepredict::analysis
