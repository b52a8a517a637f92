//===- test/support/enumerator.cpp - Brute-force maximal causal model -----===//
//
// Races by breadth-first search over the states of docs/semantics.md
// (model_explorer.h): at every reachable state, any two threads whose next
// events conflict (and are enabled) race.
//
#include "enumerator.h"

#include "model_explorer.h"

#include "racepredict/analysis/memory_objects.h"

#include <algorithm>

namespace racepredict::testsupport {

namespace {

/// An access, or a free (it writes the whole object it ends).
bool touchesMemory(trace::EventKind k) {
  return trace::isAccess(k) || k == trace::EventKind::Free;
}

bool conflict(const analysis::TraceIndex &idx_, EventId a, EventId b) {
  const Event &x = idx_.trace().events[a], &y = idx_.trace().events[b];
  bool xFree = x.kind == trace::EventKind::Free;
  if (xFree || y.kind == trace::EventKind::Free)
    return x.thread != y.thread && trace::isAccess(xFree ? y.kind : x.kind) &&
           idx_.objects().ends(xFree ? a : b, xFree ? b : a);
  return trace::isAccess(x.kind) && trace::isAccess(y.kind) && x.obj == y.obj &&
         x.thread != y.thread &&
         (trace::writesValue(x.kind) || trace::writesValue(y.kind)) &&
         !(trace::isAtomic(x.kind) && trace::isAtomic(y.kind)) &&
         idx_.allocGeneration(a) == idx_.allocGeneration(b);
}

} // namespace

EnumerationResult enumerateRaces(const analysis::TraceIndex &idx,
                                 size_t maxStates) {
  ModelExplorer m(idx);
  EnumerationResult out;
  size_t nt = idx.numThreads();
  out.states = m.explore(
      maxStates, &out.truncated,
      [&](const State &s, const ModelExplorer::PathFn &path) {
        if (m.done(s))
          out.fullyReachable = true;
        // "Races": any two threads whose next events conflict (and are
        // enabled: only a thread's very first event can be disabled) race.
        for (ThreadId t = 0; t < nt; ++t) {
          EventId a = m.next(s, t);
          if (a == trace::kNone || !touchesMemory(idx.trace().events[a].kind) ||
              !m.enabled(s, t))
            continue;
          for (ThreadId u = t + 1; u < nt; ++u) {
            EventId b = m.next(s, u);
            if (b == trace::kNone || !conflict(idx, a, b) || !m.enabled(s, u))
              continue;
            auto key = std::make_pair(std::min(a, b), std::max(a, b));
            if (!out.races.count(key))
              out.races.emplace(key, path());
          }
        }
      });
  return out;
}

// The same state space as enumerateRaces, in product with an observer
// (property patterns); the observer state joins the memoisation key.
std::optional<std::vector<Step>>
findObservedSchedule(const analysis::TraceIndex &idx,
                     const ScheduleObserver &obs, size_t maxStates,
                     bool *truncated) {
  ModelExplorer en(idx);
  struct Node {
    State s;
    uint32_t o;
  };
  auto key = [](const Node &n) {
    std::string k = n.s.key();
    k.append(reinterpret_cast<const char *>(&n.o), sizeof n.o);
    return k;
  };
  std::vector<Node> nodes{{en.initial(), obs.initial()}};
  std::vector<std::pair<uint32_t, Step>> parent{
      {UINT32_MAX, Step{trace::kNone, false}}};
  std::unordered_map<std::string, uint32_t> seen{{key(nodes[0]), 0}};
  std::deque<uint32_t> queue{0};
  if (truncated)
    *truncated = false;
  while (!queue.empty()) {
    uint32_t id = queue.front();
    queue.pop_front();
    if (obs.accepting(nodes[id].o)) {
      std::vector<Step> sigma;
      for (uint32_t x = id; parent[x].first != UINT32_MAX; x = parent[x].first)
        sigma.push_back(parent[x].second);
      return std::vector<Step>(sigma.rbegin(), sigma.rend());
    }
    for (analysis::ThreadId t = 0; t < idx.numThreads(); ++t) {
      if (!en.enabled(nodes[id].s, t))
        continue;
      Node n{nodes[id].s, 0};
      Step st = en.apply(n.s, t);
      n.o = obs.step(nodes[id].o, st);
      if (n.o == ScheduleObserver::kDead)
        continue;
      auto [it, fresh] =
          seen.emplace(key(n), static_cast<uint32_t>(nodes.size()));
      if (!fresh)
        continue;
      if (nodes.size() >= maxStates) {
        if (truncated)
          *truncated = true;
        continue;
      }
      nodes.push_back(std::move(n));
      parent.push_back({id, st});
      queue.push_back(it->second);
    }
  }
  return std::nullopt;
}

} // namespace racepredict::testsupport
