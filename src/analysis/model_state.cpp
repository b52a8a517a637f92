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
      half_(idx.numThreads(), 0), executed_(t_->events.size(), 0),
      halfDone_(t_->events.size(), 0), concrete_(t_->events.size(), 0),
      allConcrete_(idx.numThreads(), 1), tryfailsRefail_(idx.numThreads(), 1),
      arrivals_(idx.barrierGenerations().size(), 0) {
  for (EventId e = 0; e < t_->events.size(); ++e) {
    const Event &ev = t_->events[e];
    if (ev.kind == EventKind::Wait && ev.extra != kNone)
      wokenBy_[ev.extra].push_back(e);
    else if (ev.kind == EventKind::SemWait || ev.kind == EventKind::SemPost ||
             ev.kind == EventKind::SemInit)
      semCount_.emplace(ev.obj, idx.semInitialCount(ev.obj));
    else if (trace::isAccess(ev.kind) && !memory_.count(ev.obj))
      memory_.emplace(ev.obj, idx.initialValue(ev.obj));
  }
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
    if (!concrete_[*b])
      return "its dependence, event " + std::to_string(*b) +
             ", saw another value";
  return std::nullopt;
}

std::optional<std::string> ModelState::blocked(const Step &s) const {
  if (s.event >= t_->events.size())
    return "no such event";
  const Event &ev = t_->events[s.event];
  ThreadId t = ev.thread;
  const std::string &tn = t_->threadName(t);
  if (next(t) != s.event)
    return executed_[s.event] ? "already executed"
                              : "not the next event of " + tn;
  bool twoHalves = ev.kind == EventKind::Wait || ev.kind == EventKind::Barrier;
  if (s.half && !twoHalves)
    return "has no first half";
  if (s.half && half_[t])
    return "first half already executed";
  if (twoHalves && !s.half && !half_[t])
    return "its first half has not been executed";
  if (pos_[t] == 0 && idx_->forkOf(t) != kNone && !executed_[idx_->forkOf(t)])
    return tn + " has not been forked yet";

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
    if (ev.extra != kNone && !executed_[ev.extra])
      return "its notify, event " + std::to_string(ev.extra) +
             ", has not happened";
    if (heldByOther(ev.aux, t, false))
      return t_->table(trace::NameSpace::Lock).name(ev.aux) +
             " is held by another thread";
    return std::nullopt;
  case EventKind::Signal:
  case EventKind::Broadcast: {
    auto it = wokenBy_.find(s.event);
    if (it != wokenBy_.end())
      for (EventId w : it->second)
        if (!halfDone_[w])
          return "the wait it woke, event " + std::to_string(w) +
                 ", is not waiting yet";
    return std::nullopt;
  }
  case EventKind::Barrier: {
    if (s.half)
      return std::nullopt;
    uint32_t g = idx_->barrierGeneration(s.event);
    if (arrivals_[g] < idx_->barrierGenerations()[g].size())
      return "not every thread of its generation has arrived";
    return std::nullopt;
  }
  case EventKind::SemWait:
    if (semCount_.at(ev.obj) <= 0)
      return t_->objName(ev) + " is zero";
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
    auto it = holds_.find(ev.obj);
    bool refails =
        it != holds_.end() &&
        std::any_of(it->second.begin(), it->second.end(),
                    [&](const Hold &h) { return h.thread != t && h.write; });
    concrete_[e] = refails;
    if (!refails)
      allConcrete_[t] = tryfailsRefail_[t] = 0;
    break;
  }
  case EventKind::SemInit:
    semCount_[ev.obj] += ev.value;
    break;
  case EventKind::SemPost:
    ++semCount_[ev.obj];
    break;
  case EventKind::SemWait:
    --semCount_[ev.obj];
    break;
  default:
    break;
  }
  if (trace::readsValue(ev.kind)) {
    int64_t seen =
        ev.kind == EventKind::AtomicRmw ? t_->rmwReadValue(ev) : ev.value;
    const std::optional<int64_t> &m = memory_[ev.obj];
    concrete_[e] = m.has_value() && *m == seen;
    if (!concrete_[e])
      allConcrete_[t] = 0;
  }
  if (trace::writesValue(ev.kind)) {
    // Value-concrete iff every earlier read (and its own read half) was.
    memory_[ev.obj] =
        allConcrete_[t] ? std::optional<int64_t>(ev.value) : std::nullopt;
  }
}

void ModelState::apply(const Step &s) {
  const Event &ev = t_->events[s.event];
  ThreadId t = ev.thread;
  if (s.half) {
    halfDone_[s.event] = 1;
    half_[t] = 1;
    if (ev.kind == EventKind::Wait)
      release(ev.aux, t);
    else
      ++arrivals_[idx_->barrierGeneration(s.event)];
    return;
  }
  executeEffect(s.event);
  executed_[s.event] = 1;
  half_[t] = 0;
  ++pos_[t];
}

} // namespace racepredict::analysis
