//===- analysis/deadlock_instances.cpp - A class set's instances -------===//
//
// An ownership set (deadlock_search.h) names one class of positions per
// member; its instances are the choices of one position per class that
// can form a cut. They are produced in the order of their members sorted
// by event — the order in which the predictor takes candidates — so that
// merging the sets' cursors gives exactly the sorted candidate list, and
// the predictor can stop a group at its first deadlock without the rest
// ever being built. Depth d picks the instance's d-th smallest event among
// the members not yet picked, in increasing order; a pick that
// must-happen-before rules out next to an earlier one is skipped at once,
// and one that leaves some member no position that fits is skipped too
// (forward checking: a join of a thread that must have finished rules the
// whole set out at the first pick, not after every combination of the
// other members).
//
#include "deadlock_search.h"

#include <algorithm>

namespace racepredict::analysis::detail {

// Never-created members have one position each (their thread's first
// event, nothing run) and no must-happen-before constraint of their own:
// an event that needs one of them needs its fork, which its creator — a
// member whose every position comes before that fork — has not done, so
// the creator's constraints already rule it out. They are placed in every
// instance as they are; the search runs on the other members only (with
// a thousand threads left uncreated by a blocked join, k is 3, not 1,003:
// the search's cost is cubic in k).
InstanceCursor::InstanceCursor(DeadlockSearch &s, const OwnershipSet &set)
    : s_(&s), set_(&set), decided_(s.nt), cur_(set.shape) {
  for (Position &p : decided_)
    p.kind = Position::Absent;
  for (size_t m = 0; m < set.threads.size(); ++m) {
    if (set.shape.members[m].unforked && set.classes[m]->size() == 1) {
      fixed_.push_back(m);
      decided_[set.threads[m]] = set.classes[m]->front();
    } else {
      vars_.push_back(m);
    }
  }
  std::sort(fixed_.begin(), fixed_.end(), [&](size_t a, size_t b) {
    return set.classes[a]->front().event < set.classes[b]->front().event;
  });
  k_ = vars_.size();
  ptr_.assign(k_, std::vector<uint32_t>(k_, 0));
  pick_.assign(k_, 0);
  assigned_.assign(k_, 0);
}

bool InstanceCursor::next() {
  size_t d = 0;
  if (started_) {
    // Resume after the last instance: its last pick's next position.
    d = k_ - 1;
    assigned_[pick_[d]] = 0;
    ++ptr_[d][pick_[d]];
  }
  started_ = true;
  for (;;) {
    if (!s_->step())
      return false;
    auto &ptr = ptr_[d];
    // The least next position among the members left; a member with none
    // left has no event after the earlier picks: backtrack.
    size_t best = k_;
    bool dead = false;
    for (size_t i = 0; i < k_ && !dead; ++i) {
      if (assigned_[i])
        continue;
      if (ptr[i] == classOf(i).size())
        dead = true;
      else if (best == k_ ||
               classOf(i)[ptr[i]].event < classOf(best)[ptr[best]].event)
        best = i;
    }
    if (dead) {
      if (d == 0)
        return false;
      --d;
      assigned_[pick_[d]] = 0;
      ++ptr_[d][pick_[d]];
      continue;
    }
    const Position &p = classOf(best)[ptr[best]];
    switch (fit(best, p, d)) {
    case Fit::Early:
      ++ptr[best];
      continue;
    case Fit::Late: // every later position of its thread needs even more
      ptr[best] = static_cast<uint32_t>(classOf(best).size());
      continue;
    case Fit::Ok:
      break;
    }
    pick_[d] = best;
    assigned_[best] = 1;
    if (d + 1 == k_) {
      if (accept())
        return true;
      assigned_[best] = 0;
      ++ptr[best];
      continue;
    }
    // Forward checking: each member left starts at its first position
    // after this event that fits the picks; if that one comes too late,
    // so do the others, and this pick has no instance.
    auto &nx = ptr_[d + 1];
    bool open = true;
    for (size_t i = 0; i < k_ && open; ++i) {
      if (assigned_[i])
        continue;
      nx[i] = firstFit(i, ptr[i], p.event, d + 1);
      open = nx[i] < classOf(i).size() &&
             fit(i, classOf(i)[nx[i]], d + 1) == Fit::Ok;
    }
    if (!open) {
      assigned_[best] = 0;
      ++ptr[best];
      continue;
    }
    ++d;
  }
}

// Must-happen-before between a position of member i and the picks of
// depths below `depth` (DeadlockSearch::ordered). Along a thread, clocks
// only grow: a position that needs more of a picked thread than it has
// executed ("late") is followed by positions that need as much or more,
// and one whose thread has executed less than a pick needs ("early") by
// positions that have executed more. Without filters every position fits.
InstanceCursor::Fit InstanceCursor::fit(size_t i, const Position &p,
                                        size_t depth) const {
  if (!s_->opts.filters)
    return Fit::Ok;
  ThreadId u = threadOf(i);
  Fit out = Fit::Ok;
  for (size_t e = 0; e < depth; ++e) {
    size_t m = pick_[e];
    const Position &q = classOf(m)[ptr_[e][m]];
    ThreadId v = threadOf(m);
    if (p.clockOf != kNone && s_->mhb.entry(p.clockOf, v) > q.pos)
      return Fit::Late;
    if (q.clockOf != kNone && s_->mhb.entry(q.clockOf, u) > p.pos)
      out = Fit::Early;
  }
  return out;
}

// The first position of member i from `from` on that comes after event
// `after` and is not early for the picks below `depth`.
uint32_t InstanceCursor::firstFit(size_t i, uint32_t from, EventId after,
                                  size_t depth) const {
  const auto &c = classOf(i);
  uint32_t need = 0; // events of i's thread the picks need executed
  if (s_->opts.filters)
    for (size_t e = 0; e < depth; ++e) {
      size_t m = pick_[e];
      const Position &q = classOf(m)[ptr_[e][m]];
      if (q.clockOf != kNone)
        need = std::max(need, s_->mhb.entry(q.clockOf, threadOf(i)));
    }
  return static_cast<uint32_t>(
      std::lower_bound(c.begin() + from, c.end(), std::make_pair(after, need),
                       [](const Position &x, std::pair<EventId, uint32_t> b) {
                         return x.event < b.first || x.pos < b.second;
                       }) -
      c.begin());
}

/// The semaphore filter on the whole cut, then the candidate itself: the
/// picks (by event) merged with the never-created members (by event).
bool InstanceCursor::accept() {
  for (size_t d = 0; d < k_; ++d) {
    size_t i = pick_[d];
    decided_[threadOf(i)] = classOf(i)[ptr_[d][i]];
  }
  if (!s_->semaphoresCanServe(decided_, false))
    return false;
  size_t d = 0, f = 0;
  for (size_t out = 0; out < cur_.members.size(); ++out) {
    size_t m;
    EventId e;
    if (f == fixed_.size() ||
        (d < k_ && classOf(pick_[d])[ptr_[d][pick_[d]]].event <
                       set_->classes[fixed_[f]]->front().event)) {
      e = classOf(pick_[d])[ptr_[d][pick_[d]]].event;
      m = vars_[pick_[d++]];
    } else {
      m = fixed_[f++];
      e = set_->classes[m]->front().event;
    }
    cur_.members[out] = {e, set_->shape.members[m].unforked};
    cur_.finishedHolders[out] = set_->shape.finishedHolders[m];
  }
  return true;
}

} // namespace racepredict::analysis::detail
