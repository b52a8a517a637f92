//===- analysis/trace_index.cpp - Derived trace structure -----------------===//
#include "racepredict/analysis/trace_index.h"

#include "racepredict/support/error.h"

#include <algorithm>
#include <map>

namespace racepredict::analysis {

using trace::Event;
using trace::EventKind;

namespace {
const std::vector<EventId> kNoEvents;
const std::vector<uint32_t> kNoSections;
} // namespace

TraceIndex::TraceIndex(const trace::Trace &t) : t_(t) {
  size_t nt = t.numThreads();
  threadEvents_.resize(nt);
  forkOf_.assign(nt, kNone);
  pos_.resize(t.events.size());
  sectionsByThread_.resize(nt);

  // Open sections per (thread, lock): a stack so that recursive acquires of
  // one lock pair with their releases innermost-first.
  std::map<std::pair<ThreadId, SymId>, std::vector<uint32_t>> open;
  std::unordered_map<SymId, uint32_t> barrierFill; // members in open gen
  std::unordered_map<SymId, uint32_t> barrierOpenGen;
  std::unordered_map<SymId, int64_t> semCount;
  std::unordered_map<SymId, uint32_t> allocs;

  auto openSection = [&](const Event &e, EventId i, SymId lock, bool read) {
    sections_.push_back({lock, e.thread, i, kNone, read, false});
    open[{e.thread, lock}].push_back(
        static_cast<uint32_t>(sections_.size() - 1));
  };
  auto closeSection = [&](const Event &e, EventId i, SymId lock, bool wait) {
    auto it = open.find({e.thread, lock});
    if (it == open.end() || it->second.empty())
      return; // release without a hold: ignored (docs/semantics.md)
    LockSection &s = sections_[it->second.back()];
    s.release = i;
    s.releasedByWait = wait;
    it->second.pop_back();
  };

  for (EventId i = 0; i < t.events.size(); ++i) {
    const Event &e = t.events[i];
    pos_[i] = static_cast<uint32_t>(threadEvents_[e.thread].size());
    threadEvents_[e.thread].push_back(i);
    switch (e.kind) {
    case EventKind::Fork:
      if (forkOf_[e.obj] == kNone)
        forkOf_[e.obj] = i;
      break;
    case EventKind::Acquire:
      openSection(e, i, e.obj, false);
      break;
    case EventKind::RAcquire:
      openSection(e, i, e.obj, true);
      break;
    case EventKind::Release:
      closeSection(e, i, e.obj, false);
      break;
    case EventKind::Wait:
      closeSection(e, i, e.aux, true);
      openSection(e, i, e.aux, false);
      break;
    case EventKind::Barrier: {
      auto &fill = barrierFill[e.obj];
      if (fill == 0) {
        barrierOpenGen[e.obj] = static_cast<uint32_t>(barrierGens_.size());
        barrierGens_.emplace_back();
      }
      uint32_t g = barrierOpenGen[e.obj];
      barrierGens_[g].push_back(i);
      barrierGen_[i] = g;
      // The first member's count closes the generation.
      uint32_t count = t.events[barrierGens_[g].front()].aux;
      fill = (fill + 1 >= count) ? 0 : fill + 1;
      break;
    }
    case EventKind::SemInit:
      semCount[e.obj] += e.value;
      semInitial_.emplace(e.obj, 0);
      break;
    case EventKind::SemPost:
      semCount[e.obj] += 1;
      break;
    case EventKind::SemWait: {
      int64_t &c = semCount[e.obj];
      c -= 1;
      auto &init = semInitial_[e.obj];
      init = std::max(init, -c);
      break;
    }
    case EventKind::Alloc:
      allocs[e.obj] += 1;
      break;
    default:
      break;
    }
    if (trace::isAccess(e.kind)) {
      auto &acc = accesses_[e.obj];
      if (acc.empty() && !t.initValues.count(e.obj)) {
        if (e.kind == EventKind::AtomicRmw)
          initial_[e.obj] = t.rmwReadValue(e);
        else if (trace::readsValue(e.kind))
          initial_[e.obj] = e.value;
        else
          initial_[e.obj] = std::nullopt;
      }
      acc.push_back(i);
      if (trace::writesValue(e.kind))
        writes_[e.obj].push_back(i);
      if (auto it = allocs.find(e.obj); it != allocs.end())
        allocGen_[i] = it->second;
    }
  }
  // A seminit after waits it fed is not modelled; the count stays >= 0.
  for (auto &[sem, init] : semInitial_)
    if (init < 0)
      init = 0;

  std::stable_sort(sections_.begin(), sections_.end(),
                   [](const LockSection &a, const LockSection &b) {
                     return a.lock < b.lock;
                   });
  for (uint32_t s = 0; s < sections_.size(); ++s) {
    sectionsByLock_[sections_[s].lock].push_back(s);
    sectionsByThread_[sections_[s].thread].push_back(s);
  }
}

EventId TraceIndex::poPrev(EventId e) const {
  uint32_t p = pos_[e];
  return p == 0 ? kNone : threadEvents_[t_.events[e].thread][p - 1];
}

EventId TraceIndex::poNext(EventId e) const {
  const auto &te = threadEvents_[t_.events[e].thread];
  uint32_t p = pos_[e] + 1;
  return p < te.size() ? te[p] : kNone;
}

const std::vector<uint32_t> &TraceIndex::sectionsOf(SymId lock) const {
  auto it = sectionsByLock_.find(lock);
  return it == sectionsByLock_.end() ? kNoSections : it->second;
}

std::vector<uint32_t> TraceIndex::sectionsHolding(EventId e) const {
  std::vector<uint32_t> out;
  ThreadId th = t_.events[e].thread;
  for (uint32_t s : sectionsByThread_[th]) {
    const LockSection &ls = sections_[s];
    if (ls.acquire < e && (ls.release == kNone || e < ls.release))
      out.push_back(s);
  }
  return out;
}

std::optional<int64_t> TraceIndex::initialValue(SymId loc) const {
  auto it = t_.initValues.find(loc);
  if (it != t_.initValues.end())
    return it->second;
  auto jt = initial_.find(loc);
  return jt == initial_.end() ? std::nullopt : jt->second;
}

int64_t TraceIndex::semInitialCount(SymId sem) const {
  auto it = semInitial_.find(sem);
  return it == semInitial_.end() ? 0 : it->second;
}

const std::vector<EventId> &TraceIndex::writesTo(SymId loc) const {
  auto it = writes_.find(loc);
  return it == writes_.end() ? kNoEvents : it->second;
}

const std::vector<EventId> &TraceIndex::accessesTo(SymId loc) const {
  auto it = accesses_.find(loc);
  return it == accesses_.end() ? kNoEvents : it->second;
}

uint32_t TraceIndex::allocGeneration(EventId e) const {
  auto it = allocGen_.find(e);
  return it == allocGen_.end() ? 0 : it->second;
}

} // namespace racepredict::analysis
