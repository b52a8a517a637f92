//===- analysis/observed_prefix.cpp - States along the observed run -------===//
//
// A first half (a wait's release, a barrier's arrival) runs as soon as its
// thread reaches it, as the closure schedule does: the trace lists the
// event where it returned, and a notify or a barrier's last arrival needs
// the half before it.
//
#include "racepredict/analysis/observed_prefix.h"

#include <algorithm>

namespace racepredict::analysis {

ObservedPrefix::ObservedPrefix(const TraceIndex &idx, size_t minSpacing) {
  const auto &events = idx.trace().events;
  ModelState st(idx);
  std::vector<Step> steps;
  auto apply = [&](Step s) {
    if (st.blocked(s))
      return false;
    st.apply(s);
    steps.push_back(s);
    return true;
  };
  // The first half of t's next event, if t reached one.
  auto reachHalf = [&](ThreadId t) {
    EventId n = st.next(t);
    return n == kNone || !trace::hasTwoHalves(events[n].kind) ||
           st.inFirstHalf(t) || st.blocked({n, true}) || apply({n, true});
  };
  for (ThreadId t = 0; t < idx.numThreads(); ++t)
    reachHalf(t);
  checkpoints_.push_back({0, steps.size(), st});
  size_t spacing = minSpacing;
  for (EventId e = 0; e < events.size(); ++e) {
    if (e - checkpoints_.back().end >= spacing) {
      checkpoints_.push_back({e, steps.size(), st});
      spacing = std::max(minSpacing, 2 * st.footprint());
    }
    if (!apply({e, false}))
      break;
    reachHalf(events[e].thread);
    if (events[e].kind == trace::EventKind::Fork &&
        events[e].obj < idx.numThreads())
      reachHalf(static_cast<ThreadId>(events[e].obj));
  }
  steps_ = std::make_shared<const SharedSteps>(std::move(steps));
}

const ObservedPrefix::Checkpoint &ObservedPrefix::before(EventId x) const {
  auto it = std::upper_bound(
      checkpoints_.begin(), checkpoints_.end(), x,
      [](EventId v, const Checkpoint &c) { return v < c.end; });
  return it[-1]; // checkpoints_[0] ends at 0
}

} // namespace racepredict::analysis
