//===- analysis/trace_index.cpp - Derived trace structure -----------------===//
#include "racepredict/analysis/trace_index.h"

#include "racepredict/analysis/channel_order.h"
#include "racepredict/analysis/memory_objects.h"
#include "racepredict/support/error.h"

#include <algorithm>

namespace racepredict::analysis {

using trace::Event;
using trace::EventKind;
using trace::NameSpace;

namespace {

/// Builds a CSR from (key, item) pairs offered in two passes: `count` then
/// `fill`, in the same order, so items keep their offering order per key.
class CsrBuilder {
public:
  CsrBuilder(Csr &out, size_t keys) : out_(out) {
    out_.off.assign(keys + 1, 0);
  }
  void count(uint32_t key) { ++out_.off[key + 1]; }
  void startFill() {
    for (size_t k = 1; k < out_.off.size(); ++k)
      out_.off[k] += out_.off[k - 1];
    out_.items.resize(out_.off.back());
    next_.assign(out_.off.begin(), out_.off.end() - 1);
  }
  void fill(uint32_t key, uint32_t item) { out_.items[next_[key]++] = item; }

private:
  Csr &out_;
  std::vector<uint32_t> next_;
};

bool isSemEvent(EventKind k) {
  return k == EventKind::SemInit || k == EventKind::SemPost ||
         k == EventKind::SemWait;
}

} // namespace

TraceIndex::TraceIndex(const trace::Trace &t)
    : t_(t), objects_(std::make_unique<MemoryObjects>(t)),
      channels_(std::make_unique<ChannelOrder>(t)) {
  const auto &events = t.events;
  size_t n = events.size(), nt = t.numThreads();
  size_t nLoc = t.table(NameSpace::Location).size();
  size_t nLock = t.table(NameSpace::Lock).size();
  size_t nSem = t.table(NameSpace::Sem).size();
  threadEvents_.resize(nt);
  forkOf_.assign(nt, kNone);
  pos_.resize(n);

  // Counting pass: exact sizes, so that no index grows by doubling.
  std::vector<size_t> perThread(nt, 0);
  CsrBuilder acc(accesses_, nLoc), wr(writes_, nLoc), sem(bySem_, nSem);
  for (const Event &e : events) {
    ++perThread[e.thread];
    if (trace::isAccess(e.kind)) {
      acc.count(e.obj);
      if (trace::writesValue(e.kind))
        wr.count(e.obj);
    } else if (isSemEvent(e.kind)) {
      sem.count(e.obj);
    }
  }
  for (ThreadId th = 0; th < nt; ++th)
    threadEvents_[th].reserve(perThread[th]);
  acc.startFill();
  wr.startFill();
  sem.startFill();

  // Open sections per (thread, lock): a stack so that recursive acquires of
  // one lock pair with their releases innermost-first.
  std::unordered_map<uint64_t, std::vector<uint32_t>> open;
  auto key = [](ThreadId th, SymId lock) {
    return (uint64_t{th} << 32) | lock;
  };
  std::unordered_map<SymId, uint32_t> barrierFill; // members in open gen
  std::unordered_map<SymId, uint32_t> barrierOpenGen;
  std::vector<int64_t> semCount(nSem, 0);
  semInitial_.assign(nSem, 0);
  initial_.assign(nLoc, std::nullopt);
  std::vector<char> seenLoc(nLoc, 0);
  std::vector<std::pair<EventId, EventId>> woken; // (notify, wait)

  auto openSection = [&](const Event &e, EventId i, SymId lock, bool read) {
    sections_.push_back({lock, e.thread, i, kNone, read, false});
    open[key(e.thread, lock)].push_back(
        static_cast<uint32_t>(sections_.size() - 1));
  };
  auto closeSection = [&](const Event &e, EventId i, SymId lock, bool wait) {
    auto it = open.find(key(e.thread, lock));
    if (it == open.end() || it->second.empty())
      return; // release without a hold: ignored (docs/semantics.md)
    LockSection &s = sections_[it->second.back()];
    s.release = i;
    s.releasedByWait = wait;
    it->second.pop_back();
  };

  for (EventId i = 0; i < n; ++i) {
    const Event &e = events[i];
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
      if (e.extra != kNone)
        woken.emplace_back(e.extra, i);
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
      uint32_t count = events[barrierGens_[g].front()].aux;
      fill = (fill + 1 >= count) ? 0 : fill + 1;
      break;
    }
    case EventKind::SemInit:
      semCount[e.obj] += e.value;
      break;
    case EventKind::SemPost:
      semCount[e.obj] += 1;
      break;
    case EventKind::SemWait:
      semCount[e.obj] -= 1;
      semInitial_[e.obj] = std::max(semInitial_[e.obj], -semCount[e.obj]);
      break;
    default:
      break;
    }
    if (isSemEvent(e.kind))
      sem.fill(e.obj, i);
    if (trace::isAccess(e.kind)) {
      if (!seenLoc[e.obj]) {
        seenLoc[e.obj] = 1;
        if (!t.initValues.count(e.obj) && trace::readsValue(e.kind))
          initial_[e.obj] = readValue(i);
      }
      acc.fill(e.obj, i);
      if (trace::writesValue(e.kind))
        wr.fill(e.obj, i);
    }
  }
  for (const auto &[loc, v] : t.initValues)
    if (loc < nLoc)
      initial_[loc] = v;
  // semInitial_ is the deficit the observed waits need (0 for a consistent
  // trace with a seminit); a seminit after waits it fed is not modelled.
  std::sort(woken.begin(), woken.end());
  for (auto [notify, wait] : woken) {
    wokenNotify_.push_back(notify);
    wokenWaits_.push_back(wait);
  }

  std::stable_sort(sections_.begin(), sections_.end(),
                   [](const LockSection &a, const LockSection &b) {
                     return a.lock < b.lock;
                   });
  CsrBuilder bl(byLock_, nLock), bt(byThread_, nt);
  for (const LockSection &s : sections_) {
    bl.count(s.lock);
    bt.count(s.thread);
  }
  bl.startFill();
  bt.startFill();
  for (uint32_t s = 0; s < sections_.size(); ++s) {
    bl.fill(sections_[s].lock, s);
    bt.fill(sections_[s].thread, s);
  }
  auto byAcquire = [&](uint32_t x, uint32_t y) {
    return sections_[x].acquire < sections_[y].acquire;
  };
  for (ThreadId th = 0; th < nt; ++th)
    std::sort(byThread_.items.begin() + byThread_.off[th],
              byThread_.items.begin() + byThread_.off[th + 1], byAcquire);
  byLockThread_ = byLock_.items;
  for (SymId l = 0; l < nLock; ++l)
    std::sort(byLockThread_.begin() + byLock_.off[l],
              byLockThread_.begin() + byLock_.off[l + 1],
              [&](uint32_t x, uint32_t y) {
                const LockSection &a = sections_[x], &b = sections_[y];
                return a.thread != b.thread ? a.thread < b.thread
                                            : a.acquire < b.acquire;
              });
  // prevOpen: per thread, the sections still open at each acquire. The
  // chain from a section visits every section open at its acquire.
  prevOpen_.assign(byThread_.items.size(), kNone);
  for (ThreadId th = 0; th < nt; ++th) {
    std::vector<uint32_t> stack; // positions in byThread_.items
    for (uint32_t p = byThread_.off[th]; p < byThread_.off[th + 1]; ++p) {
      EventId acq = sections_[byThread_.items[p]].acquire;
      auto openAt = [&](uint32_t q) {
        EventId rel = sections_[byThread_.items[q]].release;
        return rel == kNone || rel > acq;
      };
      while (!stack.empty() && !openAt(stack.back()))
        stack.pop_back();
      // Hand-over-hand sections may leave closed ones below an open one:
      // readers of the chain filter by release.
      prevOpen_[p] = stack.empty() ? kNone : stack.back();
      stack.push_back(p);
    }
  }

  // Writes by (value, thread, index) and by (thread, index) per location.
  writesByThread_ = writes_.items;
  for (SymId l = 0; l < nLoc; ++l)
    std::stable_sort(writesByThread_.begin() + writes_.off[l],
                     writesByThread_.begin() + writes_.off[l + 1],
                     [&](EventId x, EventId y) {
                       return events[x].thread < events[y].thread;
                     });
  writesByValue_ = writes_.items;
  uniqueValue_.assign(n, false);
  for (SymId l = 0; l < nLoc; ++l) {
    auto b = writesByValue_.begin() + writes_.off[l];
    auto e = writesByValue_.begin() + writes_.off[l + 1];
    std::sort(b, e, [&](EventId x, EventId y) {
      const Event &p = events[x], &q = events[y];
      if (p.value != q.value)
        return p.value < q.value;
      return p.thread != q.thread ? p.thread < q.thread : x < y;
    });
    for (auto it = b; it != e; ++it)
      uniqueValue_[*it] =
          (it == b || events[it[-1]].value != events[*it].value) &&
          (it + 1 == e || events[it[1]].value != events[*it].value);
  }
}

TraceIndex::~TraceIndex() = default;

EventId TraceIndex::poPrev(EventId e) const {
  uint32_t p = pos_[e];
  return p == 0 ? kNone : threadEvents_[t_.events[e].thread][p - 1];
}

EventId TraceIndex::poNext(EventId e) const {
  const auto &te = threadEvents_[t_.events[e].thread];
  uint32_t p = pos_[e] + 1;
  return p < te.size() ? te[p] : kNone;
}

Span<uint32_t> TraceIndex::sectionsOf(SymId lock, ThreadId th) const {
  if (lock + 1 >= byLock_.off.size())
    return {};
  const uint32_t *b = byLockThread_.data() + byLock_.off[lock];
  const uint32_t *e = byLockThread_.data() + byLock_.off[lock + 1];
  auto lo = std::lower_bound(b, e, th, [&](uint32_t s, ThreadId v) {
    return sections_[s].thread < v;
  });
  auto hi = std::upper_bound(lo, e, th, [&](ThreadId v, uint32_t s) {
    return v < sections_[s].thread;
  });
  return {lo, hi};
}

std::vector<uint32_t> TraceIndex::sectionsOpenAfter(ThreadId th,
                                                    uint32_t n) const {
  std::vector<uint32_t> out;
  if (n == 0)
    return out;
  const auto &te = threadEvents_[th];
  EventId bound =
      n < te.size() ? te[n] : static_cast<EventId>(t_.events.size());
  EventId last = te[n - 1];
  const uint32_t *b = byThread_.items.data() + byThread_.off[th];
  const uint32_t *e = byThread_.items.data() + byThread_.off[th + 1];
  // The last section acquired among the first n events, then the chain.
  const uint32_t *it = std::upper_bound(b, e, last, [&](EventId v, uint32_t s) {
    return v < sections_[s].acquire;
  });
  if (it == b)
    return out;
  uint32_t p = static_cast<uint32_t>(it - 1 - byThread_.items.data());
  while (p != kNone) {
    const LockSection &s = sections_[byThread_.items[p]];
    if (s.release == kNone || s.release >= bound)
      out.push_back(byThread_.items[p]);
    p = prevOpen_[p];
  }
  return out;
}

std::vector<uint32_t> TraceIndex::sectionsHolding(EventId e) const {
  std::vector<uint32_t> out;
  ThreadId th = t_.events[e].thread;
  // Sections open after the events before e, except one released by e.
  for (uint32_t s : sectionsOpenAfter(th, pos_[e])) {
    const LockSection &ls = sections_[s];
    if (ls.acquire < e && (ls.release == kNone || e < ls.release))
      out.push_back(s);
  }
  std::sort(out.begin(), out.end());
  return out;
}

uint32_t TraceIndex::sectionAcquiredAt(EventId e) const {
  ThreadId th = t_.events[e].thread;
  const uint32_t *b = byThread_.items.data() + byThread_.off[th];
  const uint32_t *end = byThread_.items.data() + byThread_.off[th + 1];
  auto it = std::lower_bound(b, end, e, [&](uint32_t s, EventId v) {
    return sections_[s].acquire < v;
  });
  return it != end && sections_[*it].acquire == e ? *it : kNone;
}

EventSpan TraceIndex::wokenBy(EventId n) const {
  auto lo = std::lower_bound(wokenNotify_.begin(), wokenNotify_.end(), n);
  auto hi = std::upper_bound(lo, wokenNotify_.end(), n);
  size_t b = static_cast<size_t>(lo - wokenNotify_.begin());
  size_t e = static_cast<size_t>(hi - wokenNotify_.begin());
  return {wokenWaits_.data() + b, wokenWaits_.data() + e};
}

std::optional<int64_t> TraceIndex::initialValue(SymId loc) const {
  return loc < initial_.size() ? initial_[loc] : std::nullopt;
}

int64_t TraceIndex::semInitialCount(SymId s) const {
  return s < semInitial_.size() ? semInitial_[s] : 0;
}

EventSpan TraceIndex::writesOfValue(SymId loc, int64_t value) const {
  if (loc + 1 >= writes_.off.size())
    return {};
  const EventId *b = writesByValue_.data() + writes_.off[loc];
  const EventId *e = writesByValue_.data() + writes_.off[loc + 1];
  const auto &events = t_.events;
  auto lo = std::lower_bound(
      b, e, value, [&](EventId w, int64_t v) { return events[w].value < v; });
  auto hi = std::upper_bound(
      lo, e, value, [&](int64_t v, EventId w) { return v < events[w].value; });
  return {lo, hi};
}

EventSpan TraceIndex::writesByThread(SymId loc) const {
  if (loc + 1 >= writes_.off.size())
    return {};
  return {writesByThread_.data() + writes_.off[loc],
          writesByThread_.data() + writes_.off[loc + 1]};
}

EventSpan TraceIndex::writesOf(SymId loc, ThreadId th) const {
  EventSpan all = writesByThread(loc);
  const EventId *b = all.begin(), *e = all.end();
  const auto &events = t_.events;
  auto lo = std::lower_bound(
      b, e, th, [&](EventId w, ThreadId v) { return events[w].thread < v; });
  auto hi = std::upper_bound(
      lo, e, th, [&](ThreadId v, EventId w) { return v < events[w].thread; });
  return {lo, hi};
}

int64_t TraceIndex::readValue(EventId r) const {
  const Event &e = t_.events[r];
  return e.kind == EventKind::AtomicRmw ? t_.rmwReadValue(e) : e.value;
}

EventSpan TraceIndex::channelPredecessors(EventId e) const {
  return channels_->predecessors(e);
}

uint32_t TraceIndex::allocGeneration(EventId e) const {
  return objects_->generation(t_.events[e].obj, e);
}

} // namespace racepredict::analysis
