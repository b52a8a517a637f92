//===- analysis/deadlock_search.cpp - Shared state of the candidate searches =//
//
// What the ownership and hang searches share (deadlock_search.h): each
// thread's finished position, the locks held at a position, semaphore
// counts, the must-happen-before and lock checks of two positions, the
// search budget and the hang candidates' store.
//
#include "deadlock_search.h"

#include <algorithm>

namespace racepredict::analysis::detail {

using trace::Event;
using trace::EventKind;

bool mayBlock(const Event &e) {
  // A successful try-acquire never waited: with its lock taken the call
  // fails and the thread goes on (kEventTryAcquire).
  if (trace::isTryAcquire(e))
    return false;
  switch (e.kind) {
  case EventKind::Acquire:
  case EventKind::RAcquire:
  case EventKind::Wait:
  case EventKind::Join:
  case EventKind::SemWait:
  case EventKind::Barrier:
    return true;
  default:
    return false;
  }
}

DeadlockSearch::DeadlockSearch(const TraceIndex &i, const MustHappenBefore &m,
                               const DeadlockCandidateOptions &o,
                               DeadlockCandidateStats *st)
    : idx(i), t(i.trace()), mhb(m), opts(o), stats(st), nt(i.numThreads()),
      windows(i, m) {
  scratch_.resize(nt);
  for (Position &p : scratch_)
    p.kind = Position::Absent;
  threadSections_.resize(nt);
  for (uint32_t s = 0; s < idx.sections().size(); ++s)
    threadSections_[idx.sections()[s].thread].push_back(s);
  finalHolds_.resize(nt);
  finished_.resize(nt);
  canFinish_.resize(nt);
  for (ThreadId u = 0; u < nt; ++u) {
    const auto &te = idx.threadEvents(u);
    uint32_t len = static_cast<uint32_t>(te.size());
    finalHolds_[u] = heldSections(idx, u, len, false, &threadSections_[u]);
    Position &p = finished_[u];
    p.kind = Position::Finished;
    p.pos = len;
    p.clockOf = te.empty() ? kNone : te.back();
    p.holds = &finalHolds_[u];
    canFinish_[u] = canStayFinished(idx, u);
  }
  semSteps_.resize(nt);
  for (EventId e = 0; e < t.events.size(); ++e) {
    const Event &ev = t.events[e];
    stats->blockingEvents += mayBlock(ev);
    if (ev.kind != EventKind::SemInit && ev.kind != EventKind::SemPost &&
        ev.kind != EventKind::SemWait)
      continue;
    auto &steps = semSteps_[ev.thread][ev.obj];
    if (steps.empty() &&
        std::find(sems_.begin(), sems_.end(), ev.obj) == sems_.end())
      sems_.push_back(ev.obj);
    SemStep st{idx.posInThread(e) + 1, 0, 0};
    if (!steps.empty())
      st.waits = steps.back().waits, st.posts = steps.back().posts;
    if (ev.kind == EventKind::SemWait)
      ++st.waits;
    else
      st.posts += ev.kind == EventKind::SemPost ? 1 : ev.value;
    steps.push_back(st);
  }
}

const DeadlockSearch::SemStep *DeadlockSearch::semAt(ThreadId u, SymId sem,
                                                     uint32_t pos) const {
  auto it = semSteps_[u].find(sem);
  if (it == semSteps_[u].end())
    return nullptr;
  // The last step at or before `pos` executed events.
  auto st =
      std::upper_bound(it->second.begin(), it->second.end(), pos,
                       [](uint32_t p, const SemStep &x) { return p < x.pos; });
  return st == it->second.begin() ? nullptr : &*(st - 1);
}

int64_t DeadlockSearch::semWaits(ThreadId u, SymId sem, uint32_t pos) const {
  const SemStep *st = semAt(u, sem, pos);
  return st ? st->waits : 0;
}

int64_t DeadlockSearch::semPosts(ThreadId u, SymId sem, uint32_t pos) const {
  const SemStep *st = semAt(u, sem, pos);
  return st ? st->posts : 0;
}

int64_t DeadlockSearch::semNet(ThreadId u, SymId sem, uint32_t pos) const {
  const SemStep *st = semAt(u, sem, pos);
  return st ? st->posts - st->waits : 0;
}

bool DeadlockSearch::semaphoresCanServe(const std::vector<Position> &pos,
                                        bool hang) const {
  if (!opts.filters)
    return true;
  for (SymId sem : sems_) {
    int64_t posts = idx.semInitialCount(sem), waits = 0;
    for (ThreadId u = 0; u < nt; ++u) {
      const Position &p = pos[u];
      bool member = p.kind == Position::Member;
      uint32_t at = member ? p.pos : finished_[u].pos;
      posts += semPosts(u, sem, at);
      if (member || hang)
        waits += semWaits(u, sem, at);
    }
    if (waits > posts)
      return false;
  }
  return true;
}

Position DeadlockSearch::member(EventId e, bool unforked) {
  const Event &ev = t.events[e];
  Position p;
  p.kind = Position::Member;
  p.event = e;
  p.unforked = unforked;
  if (unforked) {
    p.holds = &holdsAt_[{e, true}]; // nothing ran: nothing held
    return p;
  }
  p.pos = idx.posInThread(e);
  p.half = hasTwoHalves(ev.kind);
  EventId prev = idx.poPrev(e);
  if (prev != kNone)
    p.clockOf = prev;
  else if (EventId f = idx.forkOf(ev.thread); f != kNone)
    p.clockOf = f; // created: the fork has run
  auto [it, fresh] =
      holdsAt_.emplace(std::make_pair(e, false), std::vector<uint32_t>());
  if (fresh)
    it->second = heldSections(idx, ev.thread, p.pos, p.half,
                              &threadSections_[ev.thread]);
  p.holds = &it->second;
  return p;
}

bool DeadlockSearch::excludes(const std::vector<uint32_t> &holds, SymId lock,
                              bool readRequest) const {
  return std::any_of(holds.begin(), holds.end(), [&](uint32_t s) {
    const LockSection &ls = idx.sections()[s];
    return ls.lock == lock && (!readRequest || !ls.readMode);
  });
}

bool DeadlockSearch::consistent(ThreadId a, const Position &pa, ThreadId b,
                                const Position &pb) const {
  if (!opts.filters)
    return true;
  bool decided[2] = {
      pa.kind == Position::Member || pa.kind == Position::Finished,
      pb.kind == Position::Member || pb.kind == Position::Finished};
  if (!decided[0] || !decided[1])
    return true;
  return ordered(a, pa, b, pb) && locksCompatible(pa, pb);
}

bool DeadlockSearch::ordered(ThreadId a, const Position &pa, ThreadId b,
                             const Position &pb) const {
  return !(pa.clockOf != kNone && mhb.entry(pa.clockOf, b) > pb.pos) &&
         !(pb.clockOf != kNone && mhb.entry(pb.clockOf, a) > pa.pos);
}

bool DeadlockSearch::locksCompatible(const Position &pa,
                                     const Position &pb) const {
  for (uint32_t s : *pa.holds) {
    const LockSection &ls = idx.sections()[s];
    if (excludes(*pb.holds, ls.lock, ls.readMode))
      return false;
  }
  return true;
}

bool DeadlockSearch::step() {
  if (stopped_)
    return false;
  if (opts.maxSearchSteps &&
      ++stats->searchSteps > budgetFrom_ + opts.maxSearchSteps) {
    stats->truncated = stopped_ = true;
    return false;
  }
  return true;
}

void DeadlockSearch::resumeAfterBudget() {
  stopped_ = false;
  budgetFrom_ = stats->searchSteps;
}

bool DeadlockSearch::emit(DeadlockCandidate c) {
  out_.push_back(std::move(c));
  if (opts.maxCandidates && out_.size() >= opts.maxCandidates) {
    stats->truncated = stopped_ = true;
    return false;
  }
  return true;
}

std::vector<DeadlockCandidate> DeadlockSearch::take() {
  return std::move(out_);
}

} // namespace racepredict::analysis::detail
