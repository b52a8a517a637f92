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
    : s_(&s), set_(&set), cur_(set.shape) {
  for (size_t m = 0; m < set.threads.size(); ++m) {
    if (set.shape.members[m].unforked && set.classes[m]->size() == 1) {
      fixed_.push_back(m);
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

namespace {

/// The never-created members of one OwnershipSet::uncreated range, by
/// event. The first one is known at once (ForkWindows::suffixFirst), and
/// two candidates almost always differ before it: the walk through the
/// creator's children sorted by first event starts only when it is taken.
class UncreatedRange {
public:
  UncreatedRange(const ForkWindows &w, ThreadId c, uint32_t from)
      : w_(&w), c_(c), from_(from) {}
  bool done() const { return walking_ ? at_ == fe().size() : head() == kNone; }
  EventId event() const { return walking_ ? fe()[at_].first : head(); }
  void advance() {
    if (!walking_) {
      walking_ = true;
      if (w_->startInForkOrder(c_)) // the children from `from` on, in a row
        at_ = std::lower_bound(fe().begin(), fe().end(), from_,
                               [](const std::pair<EventId, uint32_t> &x,
                                  uint32_t k) { return x.second < k; }) -
              fe().begin();
      skip(); // now at the head
    }
    ++at_;
    skip();
  }

private:
  const std::vector<std::pair<EventId, uint32_t>> &fe() const {
    return w_->firstEvents(c_);
  }
  EventId head() const { return w_->suffixFirst(c_)[from_].first; }
  void skip() {
    while (at_ < fe().size() && fe()[at_].second < from_)
      ++at_;
  }
  const ForkWindows *w_;
  ThreadId c_;
  uint32_t from_;
  bool walking_ = false;
  size_t at_ = 0;
};

/// A candidate's members in order: its decided members merged with its
/// never-created ranges.
class MemberSeq {
public:
  MemberSeq(const std::vector<DeadlockMember> &decided,
            const DeadlockSearch *s = nullptr,
            const OwnershipSet *set = nullptr)
      : decided_(&decided) {
    if (set)
      for (auto [c, from] : set->uncreated)
        ranges_.emplace_back(s->windows, c, from);
  }
  /// The next member, or false at the end.
  bool next(DeadlockMember &m) {
    UncreatedRange *best = nullptr;
    for (UncreatedRange &r : ranges_)
      if (!r.done() && (!best || r.event() < best->event()))
        best = &r;
    bool decided = at_ < decided_->size();
    if (best &&
        (!decided || DeadlockMember{best->event(), true} < (*decided_)[at_])) {
      m = {best->event(), true};
      best->advance();
      return true;
    }
    if (!decided)
      return false;
    m = (*decided_)[at_++];
    return true;
  }

private:
  const std::vector<DeadlockMember> *decided_;
  size_t at_ = 0;
  std::vector<UncreatedRange> ranges_;
};

/// Compares two member sequences as vectors compare.
int compareSeqs(MemberSeq a, MemberSeq b) {
  for (;;) {
    DeadlockMember x, y;
    bool hx = a.next(x), hy = b.next(y);
    if (!hx || !hy)
      return hx == hy ? 0 : hx ? 1 : -1;
    if (x < y)
      return -1;
    if (y < x)
      return 1;
  }
}

} // namespace

int compareMembers(const DeadlockSearch &s,
                   const std::vector<DeadlockMember> &a, const OwnershipSet &sa,
                   const std::vector<DeadlockMember> &b,
                   const OwnershipSet &sb) {
  return compareSeqs(MemberSeq(a, &s, &sa), MemberSeq(b, &s, &sb));
}

std::vector<DeadlockMember> firstInstanceBound(const OwnershipSet &set) {
  std::vector<DeadlockMember> bound;
  for (size_t m = 0; m < set.threads.size(); ++m)
    bound.push_back(
        {set.classes[m]->front().event, set.shape.members[m].unforked});
  std::sort(bound.begin(), bound.end());
  return bound;
}

int InstanceCursor::compare(const InstanceCursor &o) const {
  return compareSeqs(MemberSeq(cur_.members, s_, set_),
                     MemberSeq(o.cur_.members, o.s_, o.set_));
}

int InstanceCursor::compare(const std::vector<DeadlockMember> &members) const {
  return compareSeqs(MemberSeq(cur_.members, s_, set_), MemberSeq(members));
}

DeadlockCandidate InstanceCursor::candidate() const {
  if (set_->uncreated.empty())
    return cur_;
  DeadlockCandidate c = cur_;
  c.members.clear();
  c.finishedHolders.clear();
  MemberSeq seq(cur_.members, s_, set_);
  size_t d = 0;
  for (DeadlockMember m; seq.next(m);) {
    bool decided = d < cur_.members.size() && cur_.members[d] == m;
    c.finishedHolders.push_back(decided ? cur_.finishedHolders[d++]
                                        : std::vector<ThreadId>());
    c.members.push_back(m);
  }
  return c;
}

/// The semaphore filter on the whole cut (never-created members included),
/// then the candidate itself: the picks (by event) merged with the
/// never-created members of the set (by event).
bool InstanceCursor::accept() {
  if (!s_->semaphores().empty()) {
    auto &cut = s_->scratch();
    std::vector<ThreadId> placed;
    auto place = [&](ThreadId u, const Position &p) {
      cut[u] = p;
      placed.push_back(u);
    };
    for (size_t d = 0; d < k_; ++d)
      place(threadOf(pick_[d]), classOf(pick_[d])[ptr_[d][pick_[d]]]);
    for (size_t m : fixed_)
      place(set_->threads[m], set_->classes[m]->front());
    for (auto [c, from] : set_->uncreated) {
      const auto &ch = s_->windows.children(c);
      for (size_t k = from; k < ch.size(); ++k)
        if (!s_->idx.threadEvents(ch[k]).empty())
          place(ch[k], s_->member(s_->idx.threadEvents(ch[k])[0], true));
    }
    bool ok = s_->semaphoresCanServe(cut, false);
    for (ThreadId u : placed)
      cut[u].kind = Position::Absent;
    if (!ok)
      return false;
  }
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
