//===- test/support/model_explorer.h - States of the maximal causal model -===//
//
// The explicit-state machine behind the brute-force enumerators (races:
// enumerator.cpp, deadlocks: deadlock_enumerator.cpp), written directly
// from docs/semantics.md ("Schedules", "Values and concreteness") and
// independently of the SMT encoding, of ModelState and of the schedule
// checker. Only the parts of a state that depend on the interleaving are
// memoised (thread positions and halves, memory, concreteness flags); lock
// holds and semaphore counts are functions of the positions (each thread's
// holds depend only on its own acq/rel/wait steps) and ride along in the
// state without being keyed.
//
#pragma once

#include "racepredict/analysis/schedule_checker.h"
#include "racepredict/analysis/trace_index.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace racepredict::testsupport {

using analysis::EventId;
using analysis::Step;
using analysis::SymId;
using analysis::ThreadId;
using trace::Event;
using trace::EventKind;
using trace::NameSpace;

struct Hold {
  ThreadId thread;
  bool write;
};

struct State {
  std::vector<uint32_t> pos; ///< per thread: executed events
  std::vector<uint8_t> half; ///< per thread: first half of next event done
  /// Per thread: every read-like event so far was concrete and every
  /// tryfail re-failed ("Values and concreteness": value-concrete writes,
  /// the plain branch rule).
  std::vector<uint8_t> allOk;
  /// Per thread: every tryfail so far re-failed (precise branches, writes).
  std::vector<uint8_t> tryOk;
  /// Per tracked read (one listed in some `br <- ...` or `wr x v <- ...`):
  /// was it concrete.
  std::vector<uint8_t> conc;
  std::vector<uint8_t> memKnown; ///< per location: value is not ⊥
  std::vector<int64_t> mem;      ///< per location (meaningful if known)
  std::vector<int64_t> sem;      ///< per semaphore: current count
  /// Per lock: holds in acquisition order (a recursive acquire adds one).
  std::vector<std::vector<Hold>> holds;

  std::string key() const {
    std::string k;
    auto put = [&k](const void *p, size_t n) {
      k.append(static_cast<const char *>(p), n);
    };
    put(pos.data(), pos.size() * sizeof(uint32_t));
    put(half.data(), half.size());
    put(allOk.data(), allOk.size());
    put(tryOk.data(), tryOk.size());
    put(conc.data(), conc.size());
    put(memKnown.data(), memKnown.size());
    for (size_t i = 0; i < mem.size(); ++i)
      if (memKnown[i])
        put(&mem[i], sizeof(int64_t));
    return k;
  }
};

class ModelExplorer {
public:
  explicit ModelExplorer(const analysis::TraceIndex &idx)
      : idx_(idx), t_(idx.trace()), nt_(idx.numThreads()) {
    trackedIndex_.assign(t_.events.size(), kNoTrack);
    for (EventId e = 0; e < t_.events.size(); ++e) {
      const Event &ev = t_.events[e];
      if (t_.hasDeps(ev)) { // a precise branch or write
        auto [b, end] = t_.deps(ev);
        for (const EventId *d = b; d != end; ++d)
          if (trackedIndex_[*d] == kNoTrack)
            trackedIndex_[*d] = numTracked_++;
      }
      if (ev.kind == EventKind::Wait && ev.extra != trace::kNone)
        wokenBy_[ev.extra].push_back(e);
    }
  }

  State initial() const {
    State s;
    s.pos.assign(nt_, 0);
    s.half.assign(nt_, 0);
    s.allOk.assign(nt_, 1);
    s.tryOk.assign(nt_, 1);
    s.conc.assign(numTracked_, 0);
    size_t nloc = t_.table(NameSpace::Location).size();
    s.memKnown.assign(nloc, 0);
    s.mem.assign(nloc, 0);
    for (SymId l = 0; l < nloc; ++l)
      if (auto v = idx_.initialValue(l)) {
        s.memKnown[l] = 1;
        s.mem[l] = *v;
      }
    size_t nsem = t_.table(NameSpace::Sem).size();
    s.sem.assign(nsem, 0);
    for (SymId x = 0; x < nsem; ++x)
      s.sem[x] = idx_.semInitialCount(x);
    s.holds.assign(t_.table(NameSpace::Lock).size(), {});
    return s;
  }

  EventId next(const State &s, ThreadId t) const {
    const auto &te = idx_.threadEvents(t);
    return s.pos[t] < te.size() ? te[s.pos[t]] : trace::kNone;
  }
  bool executed(const State &s, EventId e) const {
    return s.pos[t_.events[e].thread] > idx_.posInThread(e);
  }
  /// The first half (wait release, barrier arrival) of `e` is done.
  bool firstHalfDone(const State &s, EventId e) const {
    ThreadId th = t_.events[e].thread;
    return executed(s, e) || (next(s, th) == e && s.half[th]);
  }
  bool heldByOther(const State &s, SymId lock, ThreadId t,
                   bool writeOnly) const {
    for (const Hold &h : s.holds[lock])
      if (h.thread != t && (h.write || !writeOnly))
        return true;
    return false;
  }
  bool done(const State &s) const {
    for (ThreadId t = 0; t < nt_; ++t)
      if (next(s, t) != trace::kNone)
        return false;
    return true;
  }

  /// "Schedules": whether the next step of `t` is enabled.
  bool enabled(const State &s, ThreadId t) const {
    EventId e = next(s, t);
    if (e == trace::kNone)
      return false;
    const Event &ev = t_.events[e];
    // The first step of a forked thread (either half) needs its fork.
    if (s.pos[t] == 0 && !s.half[t]) {
      EventId f = idx_.forkOf(t);
      if (f != trace::kNone && !executed(s, f))
        return false;
    }
    switch (ev.kind) {
    case EventKind::Join:
      return s.pos[ev.obj] == idx_.threadEvents(ev.obj).size();
    case EventKind::Acquire:
      return !heldByOther(s, ev.obj, t, false);
    case EventKind::RAcquire:
      return !heldByOther(s, ev.obj, t, true);
    case EventKind::Wait:
      if (!s.half[t])
        return true; // release half
      if (ev.extra != trace::kNone && !executed(s, ev.extra))
        return false;
      return !heldByOther(s, ev.aux, t, false);
    case EventKind::Barrier:
      if (!s.half[t])
        return true; // arrival half
      for (EventId m : idx_.barrierGenerations()[idx_.barrierGeneration(e)])
        if (!firstHalfDone(s, m))
          return false;
      return true;
    case EventKind::SemWait:
      return s.sem[ev.obj] > 0;
    case EventKind::Send:
    case EventKind::Recv:
      for (EventId q : idx_.channelPredecessors(e))
        if (!executed(s, q))
          return false;
      return true;
    case EventKind::Signal:
    case EventKind::Broadcast:
      if (auto it = wokenBy_.find(e); it != wokenBy_.end())
        for (EventId w : it->second)
          if (!firstHalfDone(s, w))
            return false;
      return true;
    case EventKind::Branch:
      if (!t_.hasDeps(ev))
        return s.allOk[t];
      return depsConcrete(s, ev);
    default:
      return true;
    }
  }

  /// Executes the next step of `t` (precondition: enabled). Returns it.
  Step apply(State &s, ThreadId t) const {
    EventId e = next(s, t);
    const Event &ev = t_.events[e];
    bool twoHalves =
        ev.kind == EventKind::Wait || ev.kind == EventKind::Barrier;
    if (twoHalves && !s.half[t]) {
      if (ev.kind == EventKind::Wait)
        release(s, ev.aux, t);
      s.half[t] = 1;
      return Step{e, true};
    }
    switch (ev.kind) {
    case EventKind::Acquire:
      s.holds[ev.obj].push_back({t, true});
      break;
    case EventKind::RAcquire:
      s.holds[ev.obj].push_back({t, false});
      break;
    case EventKind::Release:
      release(s, ev.obj, t);
      break;
    case EventKind::Wait:
      s.holds[ev.aux].push_back({t, true});
      break;
    case EventKind::TryFail:
      if (!heldByOther(s, ev.obj, t, true)) {
        s.allOk[t] = 0;
        s.tryOk[t] = 0;
      }
      break;
    case EventKind::SemInit:
      s.sem[ev.obj] += ev.value;
      break;
    case EventKind::SemPost:
      s.sem[ev.obj] += 1;
      break;
    case EventKind::SemWait:
      s.sem[ev.obj] -= 1;
      break;
    case EventKind::Read:
    case EventKind::AtomicRead:
      readEffect(s, e, ev.value);
      break;
    case EventKind::AtomicRmw: {
      // After the read half, allOk includes the rmw's own read (its write
      // is value-concrete only if that read was concrete).
      readEffect(s, e, t_.rmwReadValue(ev));
      writeEffect(s, ev);
      break;
    }
    case EventKind::Write:
    case EventKind::AtomicWrite:
      writeEffect(s, ev);
      break;
    default:
      break;
    }
    s.pos[t] += 1;
    s.half[t] = 0;
    return Step{e, false};
  }

  /// Breadth-first search over every state reachable from the initial one
  /// (memoised on State::key), calling `visit` once per distinct state with
  /// a function that rebuilds a shortest schedule reaching it.
  /// Returns the number of states; `*truncated` is set at the limit.
  using PathFn = std::function<std::vector<Step>()>;
  size_t explore(
      size_t maxStates, bool *truncated,
      const std::function<void(const State &, const PathFn &)> &visit) const {
    std::vector<State> states;
    std::vector<std::pair<uint32_t, Step>> parent; // (state, step into it)
    std::unordered_map<std::string, uint32_t> seen;
    std::deque<uint32_t> queue;
    states.push_back(initial());
    parent.push_back({UINT32_MAX, Step{trace::kNone, false}});
    seen.emplace(states[0].key(), 0);
    queue.push_back(0);
    while (!queue.empty()) {
      uint32_t id = queue.front();
      queue.pop_front();
      PathFn path = [&parent, id]() {
        std::vector<Step> sigma;
        for (uint32_t x = id; parent[x].first != UINT32_MAX;
             x = parent[x].first)
          sigma.push_back(parent[x].second);
        return std::vector<Step>(sigma.rbegin(), sigma.rend());
      };
      visit(states[id], path);
      for (ThreadId t = 0; t < nt_; ++t) {
        if (!enabled(states[id], t))
          continue;
        State s = states[id];
        Step st = apply(s, t);
        auto [it, fresh] =
            seen.emplace(s.key(), static_cast<uint32_t>(states.size()));
        if (!fresh)
          continue;
        if (states.size() >= maxStates) {
          *truncated = true;
          continue;
        }
        states.push_back(std::move(s));
        parent.push_back({id, st});
        queue.push_back(it->second);
      }
    }
    return states.size();
  }

  const analysis::TraceIndex &index() const { return idx_; }
  size_t numThreads() const { return nt_; }

private:
  static constexpr uint32_t kNoTrack = UINT32_MAX;

  void release(State &s, SymId lock, ThreadId t) const {
    auto &hs = s.holds[lock];
    for (size_t i = hs.size(); i-- > 0;)
      if (hs[i].thread == t) {
        hs.erase(hs.begin() + static_cast<std::ptrdiff_t>(i));
        return;
      }
    // A release without a hold is ignored (docs/semantics.md, "Schedules").
  }

  /// A read-like event is concrete iff memory holds its recorded value.
  bool readEffect(State &s, EventId e, int64_t value) const {
    const Event &ev = t_.events[e];
    bool c = s.memKnown[ev.obj] && s.mem[ev.obj] == value;
    if (trackedIndex_[e] != kNoTrack)
      s.conc[trackedIndex_[e]] = c ? 1 : 0;
    if (!c)
      s.allOk[ev.thread] = 0;
    return c;
  }

  /// "Values and concreteness": a precise branch's or write's listed reads
  /// are concrete and every earlier tryfail of its thread re-failed.
  bool depsConcrete(const State &s, const Event &ev) const {
    if (!s.tryOk[ev.thread])
      return false;
    auto [b, end] = t_.deps(ev);
    for (const EventId *d = b; d != end; ++d)
      if (!s.conc[trackedIndex_[*d]])
        return false;
    return true;
  }

  /// A write stores its value iff it is value-concrete, else ⊥: its listed
  /// reads (`wr x v <- ...`) or, without a list, all its earlier reads.
  void writeEffect(State &s, const Event &ev) const {
    bool vc = t_.hasDeps(ev) ? depsConcrete(s, ev) : s.allOk[ev.thread] != 0;
    s.memKnown[ev.obj] = vc ? 1 : 0;
    s.mem[ev.obj] = vc ? ev.value : 0;
  }

  const analysis::TraceIndex &idx_;
  const trace::Trace &t_;
  size_t nt_;
  std::vector<uint32_t> trackedIndex_; ///< per event: dense index or none
  uint32_t numTracked_ = 0;
  std::unordered_map<EventId, std::vector<EventId>> wokenBy_;
};

} // namespace racepredict::testsupport
