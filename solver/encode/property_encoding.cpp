//===- solver/encode/property_encoding.cpp - Pattern occurrence atoms -----===//
//
// The property counterpart of race(a, b): where a race asks for two events
// to be *next* (O_a = O_b = C, Huang §4), a pattern asks for its steps to
// have *happened*, in order, inside the prefix schedule. The base formula
// (Φ_mhb ∧ Φ_lock ∧ Φ_sem ∧ Φ_cf) is the one races use, unchanged.
//
#include "racepredict/solver/property_encoding.h"

#include <algorithm>
#include <tuple>

namespace racepredict::solver {

F violationQuery(const MaximalEncoding &enc, FormulaPool &pool,
                 const property::Candidate &c) {
  const auto &ev = c.events;
  std::vector<F> conj{pool.lt(enc.eventNode(ev.back()), enc.cut())};
  for (size_t i = 0; i + 1 < ev.size(); ++i)
    conj.push_back(pool.lt(enc.eventNode(ev[i]), enc.eventNode(ev[i + 1])));
  for (size_t g = 0; g < c.gapEvents.size(); ++g)
    for (EventId s : c.gapEvents[g]) {
      OrderVar os = enc.eventNode(s);
      if (g == 0) {
        conj.push_back(pool.lt(enc.eventNode(ev[0]), os));
      } else {
        // A gap event after the cut is after the right step too (that one
        // is before the cut), so this also covers "not in σ at all".
        conj.push_back(pool.mkOr({pool.lt(os, enc.eventNode(ev[g - 1])),
                                  pool.lt(enc.eventNode(ev[g]), os)}));
      }
    }
  return pool.mkAnd(conj);
}

std::vector<Step> prefixWitness(const MaximalEncoding &enc,
                                const TraceIndex &idx,
                                const std::vector<int64_t> &order,
                                EventId last) {
  const auto &events = idx.trace().events;
  int64_t c = order[enc.cut()], stop = order[enc.eventNode(last)];
  // (order value, thread, event, half first): ties only between nodes no
  // constraint relates, so any tie-break keeps every satisfied atom.
  std::vector<std::tuple<int64_t, ThreadId, EventId, int>> nodes;
  for (EventId e = 0; e < events.size(); ++e) {
    OrderVar h = enc.halfNode(e);
    if (h != analysis::kNone && order[h] < c && order[h] <= stop)
      nodes.emplace_back(order[h], events[e].thread, e, 0);
    if (order[e] < c && (order[e] < stop || e == last))
      nodes.emplace_back(order[e], events[e].thread, e, 1);
  }
  std::sort(nodes.begin(), nodes.end());
  std::vector<Step> steps;
  for (auto &[o, t, e, full] : nodes) {
    steps.push_back({e, full == 0});
    if (e == last && full)
      break; // nodes tied with `last` but sorted after it are cut too
  }
  return steps;
}

} // namespace racepredict::solver
