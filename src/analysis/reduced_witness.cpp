//===- analysis/reduced_witness.cpp - Witnesses back on the original trace ===//
#include "racepredict/analysis/reduced_witness.h"

#include <algorithm>
#include <map>

namespace racepredict::analysis {

DroppedEventsBack::DroppedEventsBack(const TraceIndex &full,
                                     const LocalReduction &r)
    : full_(full), r_(r), next_(full.numThreads(), 0) {}

void DroppedEventsBack::setNext(ThreadId t, uint32_t p) {
  if (marked_)
    undo_.push_back({t, next_[t]});
  next_[t] = p;
}

ThreadId DroppedEventsBack::upTo(EventId e, std::vector<Step> &out) {
  // The events of e's thread before e that are not scheduled yet: all of
  // them were dropped (a schedule runs each thread's kept events in order).
  ThreadId th = full_.trace().events[e].thread;
  const std::vector<EventId> &evs = full_.threadEvents(th);
  uint32_t p = full_.posInThread(e);
  if (next_[th] >= p)
    return th;
  for (uint32_t q = next_[th]; q < p; ++q)
    out.push_back({evs[q], false});
  setNext(th, p);
  return th;
}

void DroppedEventsBack::step(Step s, std::vector<Step> &out) {
  EventId e = r_.original[s.event];
  ThreadId th = upTo(e, out);
  out.push_back({e, s.half});
  if (!s.half)
    setNext(th, full_.posInThread(e) + 1);
}

void DroppedEventsBack::last(const Step *begin, const Step *end,
                             std::vector<Step> &out) {
  for (const Step *s = begin; s != end; ++s)
    upTo(r_.original[s->event], out);
  for (const Step *s = begin; s != end; ++s)
    out.push_back({r_.original[s->event], s->half});
}

void DroppedEventsBack::mark() {
  marked_ = true;
  undo_.clear();
}

void DroppedEventsBack::rollback() {
  for (size_t i = undo_.size(); i-- > 0;)
    next_[undo_[i].first] = undo_[i].second;
  undo_.clear();
  marked_ = false;
}

std::vector<Step> expandSchedule(const TraceIndex &full,
                                 const LocalReduction &r,
                                 const std::vector<Step> &steps, size_t tail) {
  DroppedEventsBack x(full, r);
  std::vector<Step> out;
  out.reserve(steps.size());
  size_t body = steps.size() - std::min(tail, steps.size());
  for (size_t k = 0; k < body; ++k)
    x.step(steps[k], out);
  x.last(steps.data() + body, steps.data() + steps.size(), out);
  return out;
}

void expandSchedules(const TraceIndex &full, const LocalReduction &r,
                     const std::vector<WitnessSchedule *> &schedules,
                     size_t tail) {
  // By what they share, each group in order of its shared length: one walk
  // over the shared steps expands them once.
  std::map<const SharedSteps *, std::vector<WitnessSchedule *>> byBase;
  for (WitnessSchedule *s : schedules) {
    if (s->own().size() < tail) // the tail is shared: expand it alone
      *s = WitnessSchedule(expandSchedule(full, r, s->steps(), tail));
    else
      byBase[s->base().get()].push_back(s);
  }
  for (auto &[base, group] : byBase) {
    std::stable_sort(group.begin(), group.end(),
                     [](const WitnessSchedule *x, const WitnessSchedule *y) {
                       return x->sharedLength() < y->sharedLength();
                     });
    DroppedEventsBack x(full, r);
    std::vector<Step> shared;
    std::vector<std::pair<size_t, std::vector<Step>>> own;
    size_t k = 0;
    for (const WitnessSchedule *s : group) {
      for (; k < s->sharedLength(); ++k)
        x.step(base->steps()[k], shared);
      x.mark();
      const std::vector<Step> &steps = s->own();
      std::vector<Step> out;
      size_t body = steps.size() - tail;
      for (size_t i = 0; i < body; ++i)
        x.step(steps[i], out);
      x.last(steps.data() + body, steps.data() + steps.size(), out);
      x.rollback();
      own.push_back({shared.size(), std::move(out)});
    }
    auto expanded = std::make_shared<const SharedSteps>(std::move(shared));
    for (size_t i = 0; i < group.size(); ++i)
      *group[i] =
          WitnessSchedule(expanded, own[i].first, std::move(own[i].second));
  }
}

} // namespace racepredict::analysis
