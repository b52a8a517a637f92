//===- trace/validate.cpp - Sequential consistency of an observed trace ---===//
//
// One pass in trace order with the state a real execution would have: memory
// values per location (plus byte ranges for recorded addresses, so that
// alloc/free and overlapping writes of another size forget stale values),
// lock owners, semaphore counts, barrier generations and thread life cycles.
// A wait's release half is not an event; it is placed lazily: another
// thread may take the lock while the waiter's next event is that wait.
//
#include "racepredict/trace/validate.h"

#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace racepredict::trace {
namespace {

struct Cell {
  int64_t value;
  uint8_t size;
};

struct LockState {
  ThreadId writer = kNone;
  uint32_t depth = 0;                             ///< recursive write holds
  std::unordered_map<ThreadId, uint32_t> readers; ///< read holds per thread
};

class Validator {
public:
  Validator(const Trace &t, size_t max, bool structuralOnly);
  std::vector<Violation> run();

private:
  /// An inconsistency of values, locks or counts: the observed order is
  /// not a run, but the trace still describes one (docs/inputs.md).
  void fail(EventId e, std::string msg) { add(e, std::move(msg), false); }
  /// A trace the analysis cannot use: a thread's life out of order, or a
  /// must-happen-before edge (fork, join, notify, barrier arrival,
  /// dependence, a wait's release half before the notify that wakes it)
  /// pointing backwards in the observed order, which every one-pass
  /// computation over it (analysis/mhb.cpp, the slicer) takes for granted.
  void failStructure(EventId e, std::string msg) {
    add(e, std::move(msg), true);
  }
  void add(EventId e, std::string msg, bool structural) {
    if (out_.size() < max_ && (structural || !structuralOnly_))
      out_.push_back({e, std::move(msg), structural});
  }
  std::string what(const Event &e) const {
    return std::string(opName(e.kind)) + " " + t_.objName(e);
  }
  std::optional<uint64_t> address(SymId loc) const;
  void forgetRange(uint64_t lo, uint64_t hi, std::optional<SymId> keep);
  void read(EventId i, const Event &e, int64_t v);
  void write(const Event &e, int64_t v);
  /// A branch's or write's dependences must be earlier reads of its thread.
  void dependences(EventId i, const Event &e);
  /// Whether th's next event is a wait on `lock`.
  bool waitingOn(ThreadId th, SymId lock) const;
  bool take(EventId i, const Event &e, SymId lock, bool readMode);
  void release(const Event &e, SymId lock);
  void wait(EventId i, const Event &e);
  void threadEvent(EventId i, const Event &e);
  void syncEvent(EventId i, const Event &e);

  const Trace &t_;
  size_t max_;
  bool structuralOnly_;
  std::vector<Violation> out_;
  /// Each wait by the event of its thread before it (afterKey): all that
  /// is asked of a thread's next event, where a table of the next event of
  /// every event took 4 bytes an event (451 MB on pigz + zlib).
  std::unordered_map<uint64_t, EventId> waitAfter_;
  static uint64_t afterKey(ThreadId th, EventId prev) {
    return prev != kNone ? prev : uint64_t{1} << 32 | th;
  }
  std::vector<EventId> lastSeen_; ///< per thread: latest event so far
  std::vector<EventId> first_, last_;
  std::vector<bool> forked_;
  std::unordered_map<SymId, Cell> mem_;
  std::map<uint64_t, SymId> byAddr_; ///< hex-named locations seen so far
  std::unordered_map<SymId, LockState> locks_;
  /// Locks whose hold a thread gave up in the release half of its next wait.
  std::unordered_map<ThreadId, std::pair<SymId, uint32_t>> released_;
  std::unordered_map<SymId, int64_t> sems_;
  std::unordered_set<SymId> semsWithInit_;
  std::unordered_map<SymId, std::vector<EventId>> barrierGen_;
  std::unordered_set<EventId> signalsUsed_;
};

Validator::Validator(const Trace &t, size_t max, bool structuralOnly)
    : t_(t), max_(max), structuralOnly_(structuralOnly) {
  size_t nt = t.numThreads();
  first_.assign(nt, kNone);
  last_.assign(nt, kNone);
  lastSeen_.assign(nt, kNone);
  forked_.assign(nt, false);
  for (EventId i = 0; i < t.events.size(); ++i) {
    const Event &e = t.events[i];
    if (e.thread >= nt)
      continue;
    if (e.kind == EventKind::Wait)
      waitAfter_[afterKey(e.thread, last_[e.thread])] = i;
    if (first_[e.thread] == kNone)
      first_[e.thread] = i;
    last_[e.thread] = i;
  }
  for (const Event &e : t.events)
    if (e.kind == EventKind::SemInit)
      semsWithInit_.insert(e.obj);
}

std::optional<uint64_t> Validator::address(SymId loc) const {
  return locationAddress(t_.table(NameSpace::Location).name(loc));
}

void Validator::forgetRange(uint64_t lo, uint64_t hi,
                            std::optional<SymId> keep) {
  // A location overlapping [lo, hi) starts at most 7 bytes before lo.
  for (auto it = byAddr_.lower_bound(lo >= 7 ? lo - 7 : 0);
       it != byAddr_.end() && it->first < hi; ++it) {
    if (keep && it->second == *keep)
      continue;
    auto c = mem_.find(it->second);
    if (c != mem_.end() &&
        it->first + (c->second.size ? c->second.size : 1) > lo)
      mem_.erase(c);
  }
}

void Validator::read(EventId i, const Event &e, int64_t v) {
  auto c = mem_.find(e.obj);
  bool comparable = c != mem_.end() &&
                    (c->second.size == e.size || !c->second.size || !e.size);
  if (comparable && c->second.value != v)
    fail(i, what(e) + " read " + std::to_string(v) +
                " but the last write before it wrote " +
                std::to_string(c->second.value));
  if (!comparable) {
    // First read (initial value) or a read of another width: adopt it.
    mem_[e.obj] = {v, e.size};
    if (auto a = address(e.obj))
      byAddr_.emplace(*a, e.obj);
  }
}

void Validator::write(const Event &e, int64_t v) {
  if (auto a = address(e.obj)) {
    byAddr_.emplace(*a, e.obj);
    forgetRange(*a, *a + (e.size ? e.size : 1), e.obj);
  }
  mem_[e.obj] = {v, e.size};
}

void Validator::dependences(EventId i, const Event &e) {
  if (!t_.hasDeps(e))
    return;
  auto [b, end] = t_.deps(e);
  for (const EventId *d = b; d != end; ++d)
    if (*d >= i || t_.events[*d].thread != e.thread ||
        !readsValue(t_.events[*d].kind))
      failStructure(i, std::string(opName(e.kind)) + " depends on event " +
                           std::to_string(*d) +
                           ", which is not an earlier read of its thread");
}

bool Validator::waitingOn(ThreadId th, SymId lock) const {
  auto w = waitAfter_.find(afterKey(th, lastSeen_[th]));
  return w != waitAfter_.end() && t_.events[w->second].aux == lock;
}

/// Takes `lock` for e's thread. Another holder is acceptable only when its
/// next event is a wait on this lock: that wait's release half happened.
bool Validator::take(EventId i, const Event &e, SymId lock, bool readMode) {
  LockState &l = locks_[lock];
  ThreadId th = e.thread;
  if (l.writer != kNone && l.writer != th) {
    if (!waitingOn(l.writer, lock)) {
      fail(i,
           what(e) + " while thread " + t_.threadName(l.writer) + " holds it");
      return false;
    }
    released_[l.writer] = {lock, l.depth};
    l.writer = kNone;
    l.depth = 0;
  }
  if (!readMode)
    for (auto &[r, n] : l.readers)
      if (r != th && n) {
        if (!waitingOn(r, lock)) {
          fail(i, what(e) + " while thread " + t_.threadName(r) +
                      " holds it in read mode");
          return false;
        }
        n = 0;
      }
  if (readMode)
    ++l.readers[th];
  else {
    l.writer = th;
    ++l.depth;
  }
  return true;
}

void Validator::release(const Event &e, SymId lock) {
  LockState &l = locks_[lock];
  if (l.writer == e.thread) {
    if (--l.depth == 0)
      l.writer = kNone;
  } else if (l.readers[e.thread]) {
    --l.readers[e.thread];
  }
  // Releasing a lock one does not hold is ignored (docs/semantics.md).
}

void Validator::wait(EventId i, const Event &e) {
  SymId lock = e.aux;
  LockState &l = locks_[lock];
  uint32_t depth = 1;
  auto r = released_.find(e.thread);
  if (r != released_.end() && r->second.first == lock) {
    depth = r->second.second;
    released_.erase(r);
  } else if (l.writer == e.thread) {
    depth = l.depth; // release and return halves with nothing in between
    l.writer = kNone;
    l.depth = 0;
  } else {
    fail(i, what(e) + " without holding lock " +
                t_.table(NameSpace::Lock).name(lock));
  }
  if (e.extra != kNone) {
    const Event *n = e.extra < t_.events.size() ? &t_.events[e.extra] : nullptr;
    EventId before = lastSeen_[e.thread];
    if (!n || e.extra >= i || !isNotify(n->kind) || n->obj != e.obj)
      failStructure(
          i, what(e) + " is matched to event " + std::to_string(e.extra) +
                 ", which is not an earlier signal or broadcast of it");
    else if (before != kNone && e.extra < before)
      failStructure(
          i, what(e) + " is matched to notify " + std::to_string(e.extra) +
                 ", which precedes the waiting thread's previous event");
    else if (n->kind == EventKind::Signal &&
             !signalsUsed_.insert(e.extra).second)
      fail(i, what(e) + " is matched to signal " + std::to_string(e.extra) +
                  ", which already woke another wait");
  }
  // The return half re-acquires the lock: messages name the lock (obj of
  // an acquire), not the condition.
  Event reacq = e;
  reacq.kind = EventKind::Acquire;
  reacq.obj = lock;
  if (take(i, reacq, lock, false))
    l.depth = depth;
}

void Validator::threadEvent(EventId i, const Event &e) {
  if (e.kind == EventKind::Begin && first_[e.thread] != i)
    failStructure(i, "begin is not the first event of thread " +
                         t_.threadName(e.thread));
  if (e.kind == EventKind::End && last_[e.thread] != i)
    failStructure(i, "thread " + t_.threadName(e.thread) +
                         " has events after its end");
  if (e.kind == EventKind::Fork || e.kind == EventKind::Join) {
    ThreadId c = e.obj;
    if (c >= first_.size() || c == e.thread) {
      failStructure(i, what(e) + " names no other thread");
      return;
    }
    if (e.kind == EventKind::Fork) {
      if (forked_[c])
        failStructure(i, what(e) + ": the thread was already forked");
      if (first_[c] != kNone && first_[c] < i)
        failStructure(i, what(e) + " comes after the child's first event " +
                             std::to_string(first_[c]));
      forked_[c] = true;
    } else if (last_[c] != kNone && last_[c] > i) {
      failStructure(i, what(e) + " comes before the child's last event " +
                           std::to_string(last_[c]));
    }
  }
}

void Validator::syncEvent(EventId i, const Event &e) {
  switch (e.kind) {
  case EventKind::Acquire:
  case EventKind::RAcquire:
    take(i, e, e.obj, e.kind == EventKind::RAcquire);
    break;
  case EventKind::Release:
    release(e, e.obj);
    break;
  case EventKind::TryFail: {
    const LockState &l = locks_[e.obj];
    bool held = l.writer != kNone;
    for (const auto &[r, n] : l.readers)
      held |= n > 0;
    for (ThreadId th = 0; th < first_.size() && !held; ++th)
      held = th != e.thread && waitingOn(th, e.obj);
    if (!held)
      fail(i, what(e) + " failed although no thread holds the lock");
    break;
  }
  case EventKind::Wait:
    wait(i, e);
    break;
  case EventKind::SemInit:
    sems_[e.obj] += e.value;
    break;
  case EventKind::SemPost:
    ++sems_[e.obj];
    break;
  case EventKind::SemWait:
    // Without a seminit the initial count is unknown: anything goes.
    if (--sems_[e.obj] < 0 && semsWithInit_.count(e.obj))
      fail(i, what(e) + " succeeded while the semaphore count was 0");
    break;
  case EventKind::Barrier: {
    if (e.aux == 0)
      break; // participant count unknown
    std::vector<EventId> &gen = barrierGen_[e.obj];
    for (EventId g : gen)
      if (t_.events[g].thread == e.thread)
        failStructure(i, what(e) + ": thread " + t_.threadName(e.thread) +
                             " passes the barrier twice in one generation");
    // Every arrival (the participant's previous event) precedes the first
    // departure of the generation.
    EventId firstDeparture = gen.empty() ? i : gen.front();
    EventId before = lastSeen_[e.thread];
    if (before != kNone && before > firstDeparture)
      failStructure(i, what(e) + " arrives after event " +
                           std::to_string(firstDeparture) +
                           " already left this barrier generation");
    gen.push_back(i);
    if (gen.size() == e.aux)
      gen.clear();
    break;
  }
  default:
    break;
  }
}

std::vector<Violation> Validator::run() {
  for (const auto &[loc, v] : t_.initValues)
    mem_[loc] = {v, 0};
  for (EventId i = 0; i < t_.events.size() && out_.size() < max_; ++i) {
    const Event &e = t_.events[i];
    switch (e.kind) {
    case EventKind::Read:
    case EventKind::AtomicRead:
      read(i, e, e.value);
      break;
    case EventKind::Write:
    case EventKind::AtomicWrite:
      write(e, e.value);
      dependences(i, e);
      break;
    case EventKind::AtomicRmw:
      read(i, e, t_.rmwReadValue(e));
      write(e, e.value);
      break;
    case EventKind::Alloc:
    case EventKind::Free:
      if (auto a = address(e.obj))
        forgetRange(*a, *a + (e.aux ? e.aux : 1), std::nullopt);
      else
        mem_.erase(e.obj);
      break;
    case EventKind::Branch:
      dependences(i, e);
      break;
    case EventKind::Begin:
    case EventKind::End:
    case EventKind::Fork:
    case EventKind::Join:
      threadEvent(i, e);
      break;
    default:
      syncEvent(i, e);
      break;
    }
    if (e.thread < lastSeen_.size())
      lastSeen_[e.thread] = i;
  }
  return out_;
}

} // namespace

std::string violationText(const Trace &t, const Violation &v,
                          const std::string &path,
                          const std::vector<uint32_t> &lines) {
  std::string out = path;
  if (v.event < lines.size())
    out += ":" + std::to_string(lines[v.event]);
  out += ": event " + std::to_string(v.event) + ": " + v.message;
  const Event &e = t.events[v.event];
  if (e.src && e.src < t.sources.size())
    out += " (at " + t.sources[e.src].str() + ")";
  return out;
}

std::vector<Violation> validateTrace(const Trace &t, size_t maxViolations,
                                     bool structuralOnly) {
  return Validator(t, maxViolations, structuralOnly).run();
}

} // namespace racepredict::trace
