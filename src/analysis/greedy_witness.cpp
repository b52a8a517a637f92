//===- analysis/greedy_witness.cpp - Value-keeping greedy race schedules --===//
#include "racepredict/analysis/greedy_witness.h"

#include "racepredict/analysis/model_state.h"

#include <utility>

namespace racepredict::analysis {

namespace {

/// One greedy run (see the header): the prefix σ after which a and b are
/// next and enabled, or nullopt when every thread that may still move would
/// read a value other than its recorded one, is blocked, or is at its cap.
/// A step is applied only when `blocked` allows it, so the run is the
/// checker's replay of σ (executeSchedule) and ends with the checker's own
/// last test, not a second replay (as closure_witness.cpp does).
/// `targetsFirst`: a's and b's threads move whenever they can; otherwise
/// the step earliest in the observed trace goes first.
std::optional<std::vector<Step>> greedyRun(const TraceIndex &idx,
                                           const PairSlice &slice, EventId a,
                                           EventId b, bool targetsFirst) {
  const trace::Trace &tr = idx.trace();
  ThreadId ta = tr.events[a].thread, tb = tr.events[b].thread;
  std::vector<uint32_t> cap(idx.numThreads());
  for (ThreadId t = 0; t < idx.numThreads(); ++t)
    cap[t] = slice.cap(idx, t);
  ModelState st(idx);
  std::vector<Step> sigma;
  while (st.next(ta) != a || st.next(tb) != b) {
    bool found = false;
    Step best{};
    std::pair<bool, EventId> bestKey;
    for (ThreadId t = 0; t < idx.numThreads(); ++t) {
      EventId e = st.next(t);
      if (e == kNone || e == a || e == b)
        continue;
      Step s{e, trace::hasTwoHalves(tr.events[e].kind) && !st.inFirstHalf(t)};
      if (2 * idx.posInThread(e) + (s.half ? 0 : 1) >= cap[t])
        continue;
      std::pair<bool, EventId> key{targetsFirst && t != ta && t != tb, e};
      if ((found && !(key < bestKey)) || (!s.half && !st.wouldBeConcrete(e)) ||
          st.blocked(s))
        continue;
      found = true;
      best = s;
      bestKey = key;
    }
    if (!found)
      return std::nullopt;
    st.apply(best);
    sigma.push_back(best);
  }
  if (raceEnabledAfter(st, idx, a, b))
    return std::nullopt;
  return sigma;
}

} // namespace

std::optional<std::vector<Step>> findGreedyWitness(const TraceIndex &idx,
                                                   const PairSlice &slice,
                                                   EventId a, EventId b) {
  for (bool targetsFirst : {false, true}) {
    std::optional<std::vector<Step>> sigma =
        greedyRun(idx, slice, a, b, targetsFirst);
    if (!sigma)
      continue;
    sigma->push_back({a});
    sigma->push_back({b});
    return sigma;
  }
  return std::nullopt;
}

} // namespace racepredict::analysis
