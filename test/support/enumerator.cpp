//===- test/support/enumerator.cpp - Brute-force maximal causal model -----===//
//
// Races by breadth-first search over the states of docs/semantics.md
// (model_explorer.h): at every reachable state, any two threads whose next
// events conflict (and are enabled) race.
//
#include "enumerator.h"

#include "model_explorer.h"

#include <algorithm>

namespace racepredict::testsupport {

namespace {

bool conflict(const analysis::TraceIndex &idx_, EventId a, EventId b) {
  const Event &x = idx_.trace().events[a], &y = idx_.trace().events[b];
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
          if (a == trace::kNone ||
              !trace::isAccess(idx.trace().events[a].kind) || !m.enabled(s, t))
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

} // namespace racepredict::testsupport
