//===- analysis/deadlock_witness.cpp - Validate a deadlock witness --------===//
//
// Executes the witness on a ModelState (the same state the race witnesses
// are checked on) and then checks docs/semantics.md's "blocked for good"
// rules on that state directly: lock holders, semaphore counts and barrier
// arrivals come from the executed steps, not from the static cut the
// candidate generator computed, so a disagreement between the two shows up
// here as an internal error instead of a false report.
//
#include "racepredict/analysis/deadlock.h"
#include "racepredict/analysis/model_state.h"
#include "racepredict/analysis/schedule_checker.h"

#include <algorithm>

namespace racepredict::analysis {

using trace::Event;
using trace::EventKind;

namespace {

class DeadlockState {
public:
  DeadlockState(const TraceIndex &idx, const ModelState &st,
                std::vector<ThreadId> members)
      : idx_(idx), t_(idx.trace()), st_(st), members_(std::move(members)) {}

  bool member(ThreadId u) const {
    return std::find(members_.begin(), members_.end(), u) != members_.end();
  }

  /// Every thread outside the set has finished for good: nothing but the
  /// members could ever move again.
  bool quiescent() const {
    for (ThreadId u = 0; u < idx_.numThreads(); ++u)
      if (!member(u) && !(st_.finished(u) && canStayFinished(idx_, u)))
        return false;
    return true;
  }

  /// The reason thread `t`, at `e`, is blocked for good, or why it is not.
  std::optional<std::string> reason(ThreadId t, EventId e, BlockReason *r) {
    const Event &ev = t_.events[e];
    r->thread = t;
    r->event = e;
    EventId fork = idx_.forkOf(t);
    if (fork != kNone && !st_.executed(fork)) {
      ThreadId creator = t_.events[fork].thread;
      if (!member(creator))
        return "it has not been created and its creator " +
               t_.threadName(creator) + " is not blocked";
      r->kind = BlockKind::NotCreated;
      r->other = creator;
      r->since = fork;
      return std::nullopt;
    }
    bool twoHalves =
        ev.kind == EventKind::Wait || ev.kind == EventKind::Barrier;
    if (twoHalves && !st_.inFirstHalf(t))
      return "its first half has not been executed (it can still take it)";
    if (!st_.blocked({e, false}))
      return "it is enabled";
    if (trace::isTryAcquire(ev))
      return "a try-acquire never waits: with its lock taken it fails";
    switch (ev.kind) {
    case EventKind::Acquire:
    case EventKind::RAcquire:
    case EventKind::Wait:
      if (lockReason(t, ev, r))
        return std::nullopt;
      if (ev.kind == EventKind::Wait && ev.extra != kNone &&
          !st_.executed(ev.extra) && quiescent()) {
        r->kind = BlockKind::Notify;
        r->resource = ev.obj;
        return std::nullopt;
      }
      return ev.kind == EventKind::Wait
                 ? "its lock is not held for good and its notify can still "
                   "come"
                 : "no holder of its lock is blocked or finished";
    case EventKind::Join:
      if (!member(ev.obj))
        return "the thread it joins, " + t_.threadName(ev.obj) +
               ", is not blocked";
      r->kind = BlockKind::Join;
      r->other = ev.obj;
      return std::nullopt;
    case EventKind::SemWait:
      if (!quiescent())
        return "a thread outside the set can still move (and post)";
      r->kind = BlockKind::Semaphore;
      r->resource = ev.obj;
      r->count = st_.semCount(ev.obj);
      return std::nullopt;
    case EventKind::Barrier: {
      uint32_t waiting = waitingAt(ev.obj), needed = ev.aux;
      if (waiting >= needed)
        return "enough threads wait at the barrier to release it";
      if (!quiescent())
        return "a thread outside the set can still move (and arrive)";
      r->kind = BlockKind::Barrier;
      r->resource = ev.obj;
      r->arrived = waiting;
      r->needed = needed;
      return std::nullopt;
    }
    default:
      return "a " + std::string(trace::opName(ev.kind)) +
             " never waits for good";
    }
  }

private:
  /// A holder that excludes the request and never releases: a member, or
  /// a thread that finished holding the lock for good.
  bool lockReason(ThreadId t, const Event &ev, BlockReason *r) const {
    SymId lock = requestedLock(ev);
    bool readReq = ev.kind == EventKind::RAcquire;
    ThreadId best = kNone;
    for (ThreadId h : st_.holders(lock, readReq)) {
      if (h == t)
        continue;
      if (member(h)) {
        best = h;
        break;
      }
      if (best == kNone && st_.finished(h) && canStayFinished(idx_, h))
        best = h;
    }
    if (best == kNone)
      return false;
    r->kind = BlockKind::Lock;
    r->resource = lock;
    r->other = best;
    r->readMode = readReq;
    r->holderFinished = !member(best);
    EventId n = st_.next(best);
    uint32_t pos = n == kNone
                       ? static_cast<uint32_t>(idx_.threadEvents(best).size())
                       : idx_.posInThread(n);
    // The holder's most recent acquisition of the lock (readers and
    // recursive holds may have several).
    for (uint32_t s : heldSections(idx_, best, pos, st_.inFirstHalf(best))) {
      const LockSection &ls = idx_.sections()[s];
      if (ls.lock == lock && (!readReq || !ls.readMode) &&
          (r->since == kNone || ls.acquire > r->since))
        r->since = ls.acquire;
    }
    return true;
  }

  /// Threads that arrived at barrier `b` in a generation still short of
  /// arrivals (a real barrier would release any `count` of them together).
  uint32_t waitingAt(SymId b) const {
    uint32_t n = 0;
    for (ThreadId u = 0; u < idx_.numThreads(); ++u) {
      EventId x = st_.next(u);
      if (x == kNone || t_.events[x].kind != EventKind::Barrier ||
          t_.events[x].obj != b || !st_.inFirstHalf(u))
        continue;
      uint32_t g = idx_.barrierGeneration(x);
      if (st_.arrivals(g) < idx_.barrierGenerations()[g].size())
        ++n;
    }
    return n;
  }

  const TraceIndex &idx_;
  const trace::Trace &t_;
  const ModelState &st_;
  std::vector<ThreadId> members_;
};

} // namespace

std::optional<std::string>
checkDeadlockWitness(const TraceIndex &idx, const std::vector<Step> &sigma,
                     const std::vector<EventId> &blocked,
                     std::vector<BlockReason> *reasons) {
  const auto &events = idx.trace().events;
  if (blocked.empty())
    return "no blocked thread named";
  ModelState st(idx);
  if (auto err = executeSchedule(st, idx, sigma))
    return err;
  EventId exit = processExitEvent(idx);
  if (exit != kNone && st.executed(exit))
    return "the schedule executes event " + std::to_string(exit) +
           ", which ends the process";
  std::vector<ThreadId> members;
  for (EventId e : blocked) {
    if (e >= events.size())
      return "blocked event " + std::to_string(e) + " out of range";
    ThreadId t = events[e].thread;
    if (std::find(members.begin(), members.end(), t) != members.end())
      return "two blocked events of " + idx.trace().threadName(t);
    members.push_back(t);
    if (st.next(t) != e)
      return "after the schedule, event " + std::to_string(e) +
             " is not the next event of " + idx.trace().threadName(t);
  }
  DeadlockState ds(idx, st, members);
  std::vector<BlockReason> out;
  for (EventId e : blocked) {
    BlockReason r;
    if (auto why = ds.reason(events[e].thread, e, &r))
      return "after the schedule, event " + std::to_string(e) + " of " +
             idx.trace().threadName(events[e].thread) +
             " is not blocked for good: " + *why;
    out.push_back(r);
  }
  if (reasons)
    *reasons = std::move(out);
  return std::nullopt;
}

} // namespace racepredict::analysis
