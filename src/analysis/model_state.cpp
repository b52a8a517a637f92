//===- analysis/model_state.cpp - Executing steps of a prefix schedule ----===//
//
// Implements the enabling conditions and effects of docs/semantics.md. The
// SMT encoding (solver/encode/) decides the same model symbolically; keep the
// two in step (the differential test of test/model checks it).
//
#include "racepredict/analysis/model_state.h"

#include "racepredict/analysis/schedule_checker.h"

#include <algorithm>

namespace racepredict::analysis {

using trace::Event;
using trace::EventKind;

ModelState::ModelState(const TraceIndex &idx)
    : idx_(&idx), t_(&idx.trace()), pos_(idx.numThreads(), 0),
      half_(idx.numThreads(), 0), allConcrete_(idx.numThreads(), 1),
      tryfailsRefail_(idx.numThreads(), 1) {}

bool ModelState::executed(EventId e) const {
  return pos_[t_->events[e].thread] > idx_->posInThread(e);
}

bool ModelState::halfDone(EventId e) const {
  ThreadId t = t_->events[e].thread;
  return executed(e) || (next(t) == e && half_[t]);
}

bool ModelState::concrete(EventId e) const {
  return executed(e) && !notConcrete_.count(e);
}

int64_t ModelState::semCount(SymId s) const {
  auto it = semCount_.find(s);
  return it != semCount_.end() ? it->second : idx_->semInitialCount(s);
}

EventId ModelState::next(ThreadId t) const {
  const auto &evs = idx_->threadEvents(t);
  return pos_[t] < evs.size() ? evs[pos_[t]] : kNone;
}

bool ModelState::heldByOther(SymId lock, ThreadId t, bool writeOnly) const {
  auto it = holds_.find(lock);
  if (it == holds_.end())
    return false;
  return std::any_of(it->second.begin(), it->second.end(), [&](const Hold &h) {
    return h.thread != t && (h.write || !writeOnly);
  });
}

std::vector<ThreadId> ModelState::holders(SymId lock, bool writeOnly) const {
  std::vector<ThreadId> out;
  if (auto it = holds_.find(lock); it != holds_.end())
    for (const Hold &h : it->second)
      if (h.write || !writeOnly)
        out.push_back(h.thread);
  return out;
}

void ModelState::acquire(SymId lock, ThreadId t, bool write) {
  holds_[lock].push_back({t, write});
}

void ModelState::release(SymId lock, ThreadId t) {
  auto &hs = holds_[lock];
  // The latest hold of the calling thread; none: ignored (docs/semantics.md).
  for (auto it = hs.rbegin(); it != hs.rend(); ++it)
    if (it->thread == t) {
      hs.erase(std::next(it).base());
      return;
    }
}

std::optional<std::string> ModelState::branchBlocked(EventId e) const {
  const Event &ev = t_->events[e];
  if (!t_->hasDeps(ev))
    return allConcrete_[ev.thread]
               ? std::nullopt
               : std::optional<std::string>(
                     "an earlier read of its thread saw another value");
  if (!tryfailsRefail_[ev.thread])
    return "an earlier failed trylock of its thread would now succeed";
  auto [b, end] = t_->deps(ev);
  for (; b != end; ++b)
    if (!concrete(*b))
      return "its dependence, event " + std::to_string(*b) +
             ", saw another value";
  return std::nullopt;
}

bool ModelState::depsConcrete(const Event &ev) const {
  if (!tryfailsRefail_[ev.thread])
    return false;
  auto [b, end] = t_->deps(ev);
  for (; b != end; ++b)
    if (!concrete(*b))
      return false;
  return true;
}

bool ModelState::wouldBeConcrete(EventId e) const {
  const Event &ev = t_->events[e];
  if (ev.kind == EventKind::TryFail)
    return heldByOther(ev.obj, ev.thread, true);
  if (!trace::readsValue(ev.kind))
    return true;
  int64_t seen =
      ev.kind == EventKind::AtomicRmw ? t_->rmwReadValue(ev) : ev.value;
  std::optional<int64_t> m = valueOf(ev.obj);
  return m.has_value() && *m == seen;
}

std::optional<int64_t> ModelState::valueOf(SymId loc) const {
  auto it = memory_.find(loc);
  return it != memory_.end() ? it->second : idx_->initialValue(loc);
}

bool ModelState::enabledWhenNext(EventKind k) {
  // blocked() returns before its switch for every other kind, so this list
  // is the one place that says which kinds have a test of their own.
  switch (k) {
  case EventKind::Join:
  case EventKind::Acquire:
  case EventKind::RAcquire:
  case EventKind::Wait:
  case EventKind::Signal:
  case EventKind::Broadcast:
  case EventKind::Barrier:
  case EventKind::SemWait:
  case EventKind::Send:
  case EventKind::Recv:
  case EventKind::Branch:
    return false;
  default:
    return true;
  }
}

std::optional<std::string> ModelState::blocked(const Step &s) const {
  if (s.event >= t_->events.size())
    return "no such event";
  const Event &ev = t_->events[s.event];
  ThreadId t = ev.thread;
  const std::string &tn = t_->threadName(t);
  if (next(t) != s.event)
    return executed(s.event) ? "already executed"
                             : "not the next event of " + tn;
  bool twoHalves = ev.kind == EventKind::Wait || ev.kind == EventKind::Barrier;
  if (s.half && !twoHalves)
    return "has no first half";
  if (s.half && half_[t])
    return "first half already executed";
  if (twoHalves && !s.half && !half_[t])
    return "its first half has not been executed";
  if (pos_[t] == 0 && idx_->forkOf(t) != kNone && !executed(idx_->forkOf(t)))
    return tn + " has not been forked yet";
  if (enabledWhenNext(ev.kind))
    return std::nullopt;

  switch (ev.kind) {
  case EventKind::Join: {
    ThreadId u = ev.obj;
    if (pos_[u] < idx_->threadEvents(u).size())
      return t_->threadName(u) + " has not finished";
    return std::nullopt;
  }
  case EventKind::Acquire:
  case EventKind::RAcquire:
    if (heldByOther(ev.obj, t, ev.kind == EventKind::RAcquire))
      return t_->objName(ev) + " is held by another thread";
    return std::nullopt;
  case EventKind::Wait:
    if (s.half)
      return std::nullopt; // the release half is always enabled
    if (ev.extra != kNone && !executed(ev.extra))
      return "its notify, event " + std::to_string(ev.extra) +
             ", has not happened";
    if (heldByOther(ev.aux, t, false))
      return t_->table(trace::NameSpace::Lock).name(ev.aux) +
             " is held by another thread";
    return std::nullopt;
  case EventKind::Signal:
  case EventKind::Broadcast:
    for (EventId w : idx_->wokenBy(s.event))
      if (!halfDone(w))
        return "the wait it woke, event " + std::to_string(w) +
               ", is not waiting yet";
    return std::nullopt;
  case EventKind::Barrier: {
    if (s.half)
      return std::nullopt;
    uint32_t g = idx_->barrierGeneration(s.event);
    auto it = arrivals_.find(g);
    if ((it == arrivals_.end() ? 0 : it->second) <
        idx_->barrierGenerations()[g].size())
      return "not every thread of its generation has arrived";
    return std::nullopt;
  }
  case EventKind::SemWait:
    if (semCount(ev.obj) <= 0)
      return t_->objName(ev) + " is zero";
    return std::nullopt;
  case EventKind::Send:
  case EventKind::Recv:
    for (EventId q : idx_->channelPredecessors(s.event))
      if (!executed(q))
        return "its channel predecessor, event " + std::to_string(q) +
               ", has not happened";
    return std::nullopt;
  case EventKind::Branch:
    return branchBlocked(s.event);
  default:
    return std::nullopt;
  }
}

void ModelState::executeEffect(EventId e) {
  const Event &ev = t_->events[e];
  ThreadId t = ev.thread;
  switch (ev.kind) {
  case EventKind::Acquire:
  case EventKind::RAcquire:
    acquire(ev.obj, t, ev.kind == EventKind::Acquire);
    break;
  case EventKind::Release:
    release(ev.obj, t);
    break;
  case EventKind::Wait:
    acquire(ev.aux, t, true); // the return half re-acquires
    break;
  case EventKind::TryFail: {
    if (!wouldBeConcrete(e)) {
      notConcrete_[e] = 1;
      allConcrete_[t] = tryfailsRefail_[t] = 0;
    }
    break;
  }
  case EventKind::SemInit:
    semCount_[ev.obj] = semCount(ev.obj) + ev.value;
    break;
  case EventKind::SemPost:
    semCount_[ev.obj] = semCount(ev.obj) + 1;
    break;
  case EventKind::SemWait:
    semCount_[ev.obj] = semCount(ev.obj) - 1;
    break;
  default:
    break;
  }
  // The switch above changes no location's value, so the read is tested on
  // the memory it runs against.
  if (trace::readsValue(ev.kind) && !wouldBeConcrete(e)) {
    notConcrete_[e] = 1;
    allConcrete_[t] = 0;
  }
  if (trace::writesValue(ev.kind)) {
    // Value-concrete iff every earlier read (and its own read half) was,
    // or, with a dependence list, the listed reads were (issue 20).
    bool vc = t_->hasDeps(ev) ? depsConcrete(ev) : allConcrete_[t] != 0;
    memory_[ev.obj] = vc ? std::optional<int64_t>(ev.value) : std::nullopt;
  }
}

void ModelState::apply(const Step &s) {
  const Event &ev = t_->events[s.event];
  ThreadId t = ev.thread;
  if (s.half) {
    half_[t] = 1;
    if (ev.kind == EventKind::Wait)
      release(ev.aux, t);
    else
      ++arrivals_[idx_->barrierGeneration(s.event)];
    return;
  }
  executeEffect(s.event);
  half_[t] = 0;
  ++pos_[t];
}

bool ModelState::halfEnables(const Step &h, const Step &s) {
  const Event &ev = t_->events[h.event];
  ThreadId t = ev.thread;
  // Undo information: the hold a wait's release half drops, and where.
  SymId lock = ev.aux;
  std::vector<Hold> savedHolds;
  bool hadHolds = false;
  if (ev.kind == EventKind::Wait) {
    auto it = holds_.find(lock);
    if ((hadHolds = it != holds_.end()))
      savedHolds = it->second;
  }
  apply(h);
  bool enabled = !blocked(s);
  half_[t] = 0;
  if (ev.kind == EventKind::Wait) {
    if (hadHolds)
      holds_[lock] = std::move(savedHolds);
    else
      holds_.erase(lock);
  } else {
    uint32_t g = idx_->barrierGeneration(h.event);
    if (--arrivals_[g] == 0)
      arrivals_.erase(g);
  }
  return enabled;
}

} // namespace racepredict::analysis
