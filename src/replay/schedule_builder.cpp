//===- replay/schedule_builder.cpp - From a witness to a schedule ---------===//
//
// Thread identity: the trace names threads by creation order (t<key>),
// which another interleaving may change; the schedule names each thread by
// its creation path — main, or "the k-th thread that thread P created" —
// and the runtime names the threads of the replayed run the same way as
// they are created (docs/replay.md).
//
#include "racepredict/replay/schedule.h"
#include "racepredict/report/names.h"

#include <algorithm>
#include <map>

namespace racepredict::replay {

using trace::Event;
using trace::EventKind;

namespace {

bool scheduled(EventKind k) {
  // Allocation events depend on hidden allocator state (stdio buffers,
  // operator new in uninstrumented code): they are not scheduling points,
  // and take no ordinal. A racing free is a step all the same (addSteps).
  return k != EventKind::Alloc && k != EventKind::Free;
}

/// The lock an acquiring event takes (a wait re-takes its mutex).
trace::SymId lockOf(const Event &e) {
  return e.kind == EventKind::Wait ? e.aux : e.obj;
}

class Builder {
public:
  Builder(const analysis::TraceIndex &idx, report::SourceText &src)
      : idx_(idx), t_(idx.trace()), src_(src) {}

  Expected<bool> threads();
  Expected<bool> addSteps(const std::vector<analysis::Step> &steps);
  /// The racing pair of a race schedule: a free among them is a step.
  void setRacing(EventId a, EventId b) { racing_ = {a, b}; }
  /// A schedule of `kind`: its threads, then the witness's steps.
  Expected<bool> start(Schedule::Kind kind,
                       const std::vector<analysis::Step> &steps) {
    s.kind = kind;
    if (auto th = threads(); !th)
      return th;
    return addSteps(steps);
  }
  void addWakes();
  Expected<ScheduleBlock> block(const DeadlockBlock &b);

  Schedule s;

private:
  Expected<uint32_t> slotOf(EventId e) const {
    auto it = slot_.find(t_.events[e].thread);
    if (it == slot_.end())
      return Error{"thread " + t_.threadName(t_.events[e].thread) + " (event " +
                   std::to_string(e) +
                   ") was not created by pthread_create in the trace, so it "
                   "cannot be identified in another run"};
    return it->second;
  }
  /// Index of e among its thread's scheduled (non-alloc/free) events.
  uint32_t ordinal(EventId e) const { return ordinal_[e]; }
  /// The latest step on `ev`'s object (same name space), or kRoot.
  uint32_t stepOnObject(const Event &ev) const;
  Error badBlock(const DeadlockBlock &b, const std::string &why) const {
    return Error{"deadlock: thread " +
                 t_.threadName(t_.events[b.event].thread) + " (event " +
                 std::to_string(b.event) + ", blocked on " +
                 analysis::blockKindName(b.kind) + ") " + why};
  }

  const analysis::TraceIndex &idx_;
  const trace::Trace &t_;
  report::SourceText &src_;
  std::map<trace::ThreadId, uint32_t> slot_;
  std::vector<uint32_t> ordinal_;
  std::map<EventId, uint32_t> stepOf_; ///< full steps by event
  std::pair<EventId, EventId> racing_{trace::kNone, trace::kNone};
};

Expected<bool> Builder::threads() {
  size_t n = idx_.numThreads();
  ordinal_.assign(t_.events.size(), 0);
  for (trace::ThreadId u = 0; u < n; ++u) {
    uint32_t k = 0;
    for (EventId e : idx_.threadEvents(u)) {
      ordinal_[e] = k;
      if (scheduled(t_.events[e].kind))
        ++k;
    }
  }
  if (t_.events.empty())
    return Error{"the trace has no events"};
  // The root is the thread of the first event (main: it initialised the
  // runtime); every other thread must have its fork in the trace.
  trace::ThreadId root = t_.events[0].thread;
  std::vector<trace::ThreadId> order{root};
  slot_[root] = 0;
  s.threads.push_back({kRoot, 0, t_.threadName(root), root});
  // Breadth first, so that parents precede children (the format requires
  // it); children in the order their parent created them.
  for (size_t i = 0; i < order.size(); ++i) {
    trace::ThreadId p = order[i];
    uint32_t k = 0;
    for (EventId e : idx_.threadEvents(p)) {
      const Event &ev = t_.events[e];
      if (ev.kind != EventKind::Fork)
        continue;
      trace::ThreadId c = ev.obj;
      if (slot_.count(c))
        return Error{"thread " + t_.threadName(c) + " is forked twice"};
      slot_[c] = static_cast<uint32_t>(s.threads.size());
      s.threads.push_back({static_cast<uint32_t>(i), k++, t_.threadName(c), c});
      order.push_back(c);
    }
  }
  return true;
}

Expected<bool> Builder::addSteps(const std::vector<analysis::Step> &steps) {
  for (const auto &st : steps) {
    const Event &ev = t_.events.at(st.event);
    bool racingFree = ev.kind == EventKind::Free &&
                      (st.event == racing_.first || st.event == racing_.second);
    if (!scheduled(ev.kind) && !racingFree)
      continue;
    auto slot = slotOf(st.event);
    if (!slot)
      return slot.error();
    ScheduleStep step;
    step.thread = *slot;
    step.ordinal = ordinal(st.event);
    step.kind = ev.kind;
    step.half = st.half;
    step.noNotify =
        !st.half && ev.kind == EventKind::Wait && ev.extra == trace::kNone;
    step.pastDeadline = !st.half && (ev.flags & trace::kEventPastDeadline);
    step.loc = t_.sources[ev.src];
    step.desc = describeStep(t_, st.event, st.half, src_);
    step.event = st.event;
    if (!st.half)
      stepOf_[st.event] = static_cast<uint32_t>(s.steps.size());
    s.steps.push_back(std::move(step));
  }
  return true;
}

void Builder::addWakes() {
  // Every wait of the trace woken by a notify of the schedule: the notify
  // step marks it (if it is waiting then), as the witness requires.
  for (EventId w = 0; w < t_.events.size(); ++w) {
    const Event &ev = t_.events[w];
    if (ev.kind != EventKind::Wait || ev.extra == trace::kNone)
      continue;
    auto n = stepOf_.find(ev.extra);
    auto slot = slot_.find(ev.thread);
    if (n == stepOf_.end() || slot == slot_.end())
      continue;
    s.wakes.push_back({n->second, slot->second, ordinal(w)});
  }
  std::sort(s.wakes.begin(), s.wakes.end(),
            [](const ScheduleWake &a, const ScheduleWake &b) {
              return a.step < b.step;
            });
}

uint32_t Builder::stepOnObject(const Event &ev) const {
  bool has = false;
  trace::NameSpace ns = trace::objNameSpace(ev.kind, &has);
  for (size_t k = s.steps.size(); has && k-- > 0;) {
    const Event &o = t_.events[s.steps[k].event];
    bool oHas = false;
    if (o.obj == ev.obj && trace::objNameSpace(o.kind, &oHas) == ns && oHas)
      return static_cast<uint32_t>(k);
  }
  return kRoot;
}

Expected<ScheduleBlock> Builder::block(const DeadlockBlock &b) {
  using analysis::BlockKind;
  if (b.event >= t_.events.size())
    return Error{"deadlock: blocked event " + std::to_string(b.event) +
                 " is not in the trace"};
  const Event &ev = t_.events[b.event];
  auto slot = slotOf(b.event);
  if (!slot)
    return slot.error();
  ScheduleBlock q;
  q.thread = *slot;
  q.ordinal = ordinal(b.event);
  q.kind = ev.kind;
  q.on = b.kind;
  q.loc = t_.sources[ev.src];
  q.desc = describeStep(t_, b.event, false, src_);
  q.event = b.event;
  switch (b.kind) {
  case BlockKind::Lock: {
    if (ev.kind != EventKind::Acquire && ev.kind != EventKind::RAcquire &&
        ev.kind != EventKind::Wait)
      return badBlock(b, "is not a lock acquisition or a wait");
    if (b.heldSince == analysis::kNone || b.heldSince >= t_.events.size())
      return badBlock(b, "names no acquisition of the lock by its holder");
    const Event &h = t_.events[b.heldSince];
    if (lockOf(h) != analysis::requestedLock(ev) ||
        (h.kind != EventKind::Acquire && h.kind != EventKind::RAcquire &&
         h.kind != EventKind::Wait))
      return badBlock(b, "waits for another lock than event " +
                             std::to_string(b.heldSince) + " acquires");
    if (!stepOf_.count(b.heldSince))
      return badBlock(b, "waits for a lock its holder takes at event " +
                             std::to_string(b.heldSince) +
                             ", which is not a step of the witness");
    auto hslot = slotOf(b.heldSince);
    if (!hslot)
      return hslot.error();
    q.other = *hslot;
    q.otherOrdinal = ordinal(b.heldSince);
    break;
  }
  case BlockKind::Join: {
    if (ev.kind != EventKind::Join)
      return badBlock(b, "is not a join");
    auto it = slot_.find(ev.obj);
    if (it == slot_.end())
      return badBlock(b, "joins a thread that cannot be identified");
    q.other = it->second;
    break;
  }
  case BlockKind::NotCreated:
    // Nothing of the thread runs: the runtime checks that it does not exist
    // (its creator, blocked before the fork, never names it).
    q.kind = EventKind::Begin;
    q.ordinal = 0;
    q.loc = {};
    q.other = s.threads[*slot].parent;
    if (q.other == kRoot)
      return badBlock(b, "cannot be the main thread");
    for (const auto &st : s.steps)
      if (st.thread == q.thread)
        return badBlock(b, "has events in the witness schedule");
    break;
  case BlockKind::Semaphore:
  case BlockKind::Barrier:
  case BlockKind::Notify: {
    EventKind want = b.kind == BlockKind::Semaphore ? EventKind::SemWait
                     : b.kind == BlockKind::Barrier ? EventKind::Barrier
                                                    : EventKind::Wait;
    if (ev.kind != want)
      return badBlock(b, std::string("is not a ") + trace::opName(want));
    // The runtime names objects by their addresses in the replayed run: a
    // step of the schedule on the same object tells it which one it is.
    q.ref = stepOnObject(ev);
    if (q.ref == kRoot)
      return badBlock(b, "waits on " + t_.objName(ev) +
                             ", which no step of the witness operates on: "
                             "the replay could not tell it from another one");
    break;
  }
  }
  return q;
}

} // namespace

std::string describeStep(const trace::Trace &t, EventId e, bool half,
                         report::SourceText &src) {
  const Event &ev = t.events[e];
  std::string s = "[" + std::to_string(e) + "] " + t.threadName(ev.thread) +
                  " " + trace::opName(ev.kind);
  std::string obj = t.objName(ev);
  if (!obj.empty())
    s += " " + obj;
  if (ev.kind == EventKind::Wait)
    s += " " + t.table(trace::NameSpace::Lock).name(ev.aux);
  if (trace::isAccess(ev.kind))
    s += " " + std::to_string(ev.value);
  if (half)
    s += ev.kind == EventKind::Wait ? " (release half)" : " (arrival)";
  const trace::SourceLoc &loc = t.sources[ev.src];
  if (!loc.file.empty()) {
    s += "  @ " + report::shortLocation(loc);
    if (!loc.function.empty())
      s += " in " + report::functionName(loc.function);
    std::string code = src.line(loc);
    if (!code.empty())
      s += "  | " + code;
  }
  return s;
}

Expected<Schedule> raceSchedule(const analysis::TraceIndex &idx,
                                const std::vector<analysis::Step> &steps,
                                EventId a, EventId b, report::SourceText &src) {
  if (steps.size() < 2 || !(steps[steps.size() - 2] == analysis::Step{a}) ||
      !(steps.back() == analysis::Step{b}))
    return Error{"the witness does not end with the racing events " +
                 std::to_string(a) + " and " + std::to_string(b)};
  Builder bld(idx, src);
  bld.setRacing(a, b);
  if (auto st = bld.start(Schedule::Kind::Race, steps); !st)
    return st.error();
  bld.addWakes();
  return std::move(bld.s);
}

Expected<Schedule> violationSchedule(const analysis::TraceIndex &idx,
                                     const std::vector<analysis::Step> &steps,
                                     report::SourceText &src) {
  if (steps.empty())
    return Error{"the violation's witness has no steps"};
  Builder bld(idx, src);
  if (auto st = bld.start(Schedule::Kind::Violation, steps); !st)
    return st.error();
  if (bld.s.steps.empty())
    return Error{"the violation's witness has no scheduled steps"};
  bld.addWakes();
  return std::move(bld.s);
}

std::vector<DeadlockBlock>
deadlockBlocks(const std::vector<analysis::BlockReason> &reasons) {
  std::vector<DeadlockBlock> out;
  for (const auto &r : reasons)
    out.push_back(
        {r.event, r.kind,
         r.kind == analysis::BlockKind::Lock ? r.since : analysis::kNone});
  return out;
}

Expected<Schedule> deadlockSchedule(const analysis::TraceIndex &idx,
                                    const std::vector<analysis::Step> &steps,
                                    const std::vector<DeadlockBlock> &blocked,
                                    report::SourceText &src) {
  if (blocked.empty())
    return Error{"a deadlock needs at least one blocked thread"};
  Builder bld(idx, src);
  if (auto st = bld.start(Schedule::Kind::Deadlock, steps); !st)
    return st.error();
  bld.addWakes();
  for (const auto &b : blocked) {
    auto q = bld.block(b);
    if (!q)
      return q.error();
    bld.s.blocks.push_back(std::move(*q));
  }
  return std::move(bld.s);
}

} // namespace racepredict::replay
