//===- analysis/forced_writers.cpp - "No race" from forced writers --------===//
#include "racepredict/analysis/forced_writers.h"
#include "racepredict/analysis/sync_needs.h"

#include <algorithm>
#include <unordered_set>

namespace racepredict::analysis {

using trace::Event;
using trace::EventKind;

ForcedWriterRefuter::ForcedWriterRefuter(const TraceIndex &idx) : idx_(idx) {
  const auto &events = idx.trace().events;
  for (EventId e = 0; e < events.size(); ++e)
    if (trace::writesValue(events[e].kind))
      writes_[events[e].obj][events[e].value].push_back(e);
}

const std::vector<EventId> *ForcedWriterRefuter::writesOf(SymId loc,
                                                          int64_t value) const {
  auto l = writes_.find(loc);
  if (l == writes_.end())
    return nullptr;
  auto v = l->second.find(value);
  return v == l->second.end() ? nullptr : &v->second;
}

/// What every witness of one pair must run and keep concrete.
struct ForcedWriterRefuter::State {
  std::vector<uint32_t> need;          ///< per thread: events [0, need) run
  std::vector<uint32_t> limit;         ///< per thread: no event at or beyond
  std::vector<uint32_t> done;          ///< per thread: events processed
  std::vector<uint32_t> concrete;      ///< per thread: reads below are concrete
  std::unordered_set<EventId> precise; ///< reads a precise branch needs
  std::vector<ThreadId> dirty;
  std::vector<EventId> reads; ///< concrete reads whose writers to look at
  bool refuted = false;

  void needPrefix(ThreadId t, uint32_t n) {
    if (n > limit[t]) {
      refuted = true;
      return;
    }
    if (n > need[t]) {
      need[t] = n;
      dirty.push_back(t);
    }
  }
};

bool ForcedWriterRefuter::refutes(EventId a, EventId b) const {
  const trace::Trace &tr = idx_.trace();
  const auto &events = tr.events;
  size_t nt = idx_.numThreads();
  State s;
  s.need.assign(nt, 0);
  s.done.assign(nt, 0);
  s.concrete.assign(nt, 0);
  s.limit.assign(nt, kNone);
  for (EventId x : {a, b})
    s.limit[events[x].thread] = idx_.posInThread(x);
  auto needEvent = [&](EventId e) {
    s.needPrefix(events[e].thread, idx_.posInThread(e) + 1);
  };
  auto needBefore = [&](EventId e) { // e's first half: the events before it
    s.needPrefix(events[e].thread, idx_.posInThread(e));
  };
  auto concreteBelow = [&](ThreadId t, uint32_t p) {
    const auto &te = idx_.threadEvents(t);
    for (; s.concrete[t] < p; ++s.concrete[t])
      if (trace::readsValue(events[te[s.concrete[t]]].kind) &&
          !s.precise.count(te[s.concrete[t]]))
        s.reads.push_back(te[s.concrete[t]]);
  };
  auto concreteDeps = [&](const Event &ev) {
    auto [d, end] = tr.deps(ev);
    for (; d != end; ++d)
      if (idx_.posInThread(*d) >= s.concrete[ev.thread] &&
          s.precise.insert(*d).second)
        s.reads.push_back(*d);
  };
  auto process = [&](EventId e) {
    forEachSyncNeed(
        idx_, e,
        [&](ThreadId t) {
          s.needPrefix(t, static_cast<uint32_t>(idx_.threadEvents(t).size()));
        },
        needEvent, needBefore);
    const Event &ev = events[e];
    if (ev.kind == EventKind::Branch) {
      if (tr.hasDeps(ev))
        concreteDeps(ev);
      else
        concreteBelow(ev.thread, idx_.posInThread(e));
    }
  };
  // A concrete read of v: a value-concrete write of v before it, or the
  // initial value. Only writes the witness may run are options.
  auto lookAt = [&](EventId r) {
    const Event &re = events[r];
    int64_t v =
        re.kind == EventKind::AtomicRmw ? tr.rmwReadValue(re) : re.value;
    std::optional<int64_t> init = idx_.initialValue(re.obj);
    if (init && *init == v)
      return; // may see the initial value: nothing is forced
    EventId only = kNone;
    size_t options = 0;
    if (const std::vector<EventId> *ws = writesOf(re.obj, v))
      for (EventId w : *ws) {
        ThreadId wt = events[w].thread;
        uint32_t p = idx_.posInThread(w);
        bool may = w != r && (wt == re.thread ? p < idx_.posInThread(r)
                                              : p < s.limit[wt]);
        if (!may)
          continue;
        only = w;
        if (++options > 1)
          return;
      }
    if (options == 0) {
      s.refuted = true;
      return;
    }
    // The one writer runs, and stores its value concretely: its listed
    // reads, else every earlier read of its thread (and an rmw's own).
    needEvent(only);
    const Event &we = events[only];
    if (tr.hasDeps(we))
      concreteDeps(we);
    else
      concreteBelow(we.thread,
                    idx_.posInThread(only) + (we.kind == EventKind::AtomicRmw));
  };

  for (EventId x : {a, b}) {
    ThreadId t = events[x].thread;
    s.needPrefix(t, idx_.posInThread(x));
    if (idx_.forkOf(t) != kNone)
      needEvent(idx_.forkOf(t));
  }
  while (!s.refuted && (!s.dirty.empty() || !s.reads.empty())) {
    if (!s.reads.empty()) {
      EventId r = s.reads.back();
      s.reads.pop_back();
      lookAt(r);
      continue;
    }
    ThreadId t = s.dirty.back();
    s.dirty.pop_back();
    const auto &te = idx_.threadEvents(t);
    for (; s.done[t] < s.need[t]; ++s.done[t]) {
      if (s.done[t] == 0 && idx_.forkOf(t) != kNone)
        needEvent(idx_.forkOf(t));
      process(te[s.done[t]]);
    }
  }
  return s.refuted;
}

} // namespace racepredict::analysis
