//===- analysis/mhb.cpp - Must-happen-before vector clocks ----------------===//
#include "racepredict/analysis/mhb.h"

#include <algorithm>

namespace racepredict::analysis {

using trace::Event;
using trace::EventKind;

// Value-forced edges (control flow, docs/semantics.md): a branch can only
// run if the reads it depends on see their observed values. When exactly
// one write in the whole trace stores the value a read r observed, and the
// initial value differs, that write must precede r whenever the branch
// runs: an edge writer → branch.
EventId MustHappenBefore::forcedWriter(const TraceIndex &idx, EventId r) {
  const trace::Trace &t = idx.trace();
  int64_t v = idx.readValue(r);
  auto init = idx.initialValue(t.events[r].obj);
  if (init && *init == v)
    return kNone;
  EventSpan ws = idx.writesOfValue(t.events[r].obj, v);
  if (ws.size() != 1 || ws[0] >= r)
    return kNone; // none (never concrete), several, or not observed first
  return ws[0];
}

MustHappenBefore::MustHappenBefore(const TraceIndex &idx)
    : idx_(idx), nt_(idx.numThreads()) {
  const trace::Trace &t = idx.trace();
  size_t n = t.events.size();
  // The observed order is a linearisation of all must edges (each edge's
  // source was observed first), so one pass in trace order suffices. Change
  // points are appended per thread while the pass interleaves threads, so
  // they are collected per thread first and concatenated at the end.
  std::vector<std::vector<uint32_t>> pos(nt_), clk(nt_);
  std::vector<std::vector<uint32_t>> cur(nt_, std::vector<uint32_t>(nt_, 0));
  // The full clock of an earlier event, from its thread's change points.
  auto fullClock = [&](EventId e, std::vector<uint32_t> &out) {
    ThreadId te = t.events[e].thread;
    uint32_t p = idx.posInThread(e);
    const auto &ps = pos[te];
    auto it = std::upper_bound(ps.begin(), ps.end(), p);
    if (it == ps.begin()) {
      std::fill(out.begin(), out.end(), 0);
    } else {
      size_t k = static_cast<size_t>(it - ps.begin()) - 1;
      std::copy(clk[te].begin() + k * nt_, clk[te].begin() + (k + 1) * nt_,
                out.begin());
    }
    out[te] = p + 1;
  };
  std::vector<uint32_t> src(nt_);
  bool changed = false;
  auto join = [&](std::vector<uint32_t> &dst, ThreadId self, EventId from) {
    fullClock(from, src);
    for (size_t i = 0; i < nt_; ++i)
      if (i != self && src[i] > dst[i]) {
        dst[i] = src[i];
        changed = true;
      }
  };
  // Value-forced edges: see forcedWriter. Writers precede the read in the
  // trace, so the one-pass clock computation still sees them in time.
  // forcedWriter(r), in O(1) during the pass: the observed writer of r
  // (the last write of its location so far) if it is the only write of
  // the value r read, and the initial value differs.
  std::vector<EventId> lastWrite(t.table(trace::NameSpace::Location).size(),
                                 kNone);
  auto forced = [&](EventId r) -> EventId {
    const Event &re = t.events[r];
    EventId w = lastWrite[re.obj];
    int64_t v = idx.readValue(r);
    if (w == kNone || !idx.uniqueValue(w) || t.events[w].value != v)
      return kNone; // initial value, several writers, or not the writer
    auto init = idx.initialValue(re.obj);
    return init && *init == v ? kNone : w;
  };
  // Forced writers of each thread's recent reads, for the reads precise
  // branches name (almost always recent ones; others are looked up).
  constexpr size_t kRecent = 64;
  std::vector<std::vector<std::pair<EventId, EventId>>> recent(
      nt_, std::vector<std::pair<EventId, EventId>>(kRecent, {kNone, kNone}));
  auto writerOf = [&](EventId r) {
    const auto &ring = recent[t.events[r].thread];
    const auto &slot = ring[r % kRecent];
    return slot.first == r ? slot.second : forcedWriter(idx, r);
  };
  // The last write before each pending read, remembered when it is read.
  std::vector<std::vector<EventId>> pendingWriters(nt_);
  for (EventId e = 0; e < n; ++e) {
    const Event &ev = t.events[e];
    std::vector<uint32_t> &c = cur[ev.thread];
    changed = false;
    if (idx.posInThread(e) == 0)
      if (EventId f = idx.forkOf(ev.thread); f != kNone && f < e)
        join(c, ev.thread, f);
    switch (ev.kind) {
    case EventKind::Join: {
      const auto &child = idx.threadEvents(ev.obj);
      if (!child.empty() && child.back() < e)
        join(c, ev.thread, child.back());
      break;
    }
    case EventKind::Wait:
      if (ev.extra != kNone && ev.extra < e)
        join(c, ev.thread, ev.extra);
      break;
    case EventKind::Send:
    case EventKind::Recv:
      for (EventId p : idx.channelPredecessors(e))
        join(c, ev.thread, p);
      break;
    case EventKind::Signal:
    case EventKind::Broadcast:
      // A notify needs every wait it woke to be waiting: their release
      // halves, hence the events before them, precede it.
      for (EventId w : idx.wokenBy(e))
        if (EventId wp = idx.poPrev(w); wp != kNone && wp < e)
          join(c, ev.thread, wp);
      break;
    case EventKind::Branch: {
      auto joinWriter = [&](EventId w) {
        if (w != kNone)
          join(c, ev.thread, w);
      };
      if (t.hasDeps(ev)) {
        auto [b, end] = t.deps(ev);
        for (; b != end; ++b)
          joinWriter(writerOf(*b));
      } else {
        // Reads before the previous plain branch were handled there.
        for (EventId w : pendingWriters[ev.thread])
          joinWriter(w);
        pendingWriters[ev.thread].clear();
      }
      break;
    }
    case EventKind::Barrier:
      for (EventId m : idx.barrierGenerations()[idx.barrierGeneration(e)]) {
        EventId mp = idx.poPrev(m);
        if (m != e && mp != kNone && mp < e)
          join(c, ev.thread, mp);
      }
      break;
    default:
      break;
    }
    if (changed) {
      pos[ev.thread].push_back(idx.posInThread(e));
      clk[ev.thread].insert(clk[ev.thread].end(), c.begin(), c.end());
    }
    if (trace::readsValue(ev.kind)) {
      EventId w = forced(e);
      pendingWriters[ev.thread].push_back(w);
      recent[ev.thread][e % kRecent] = {e, w};
    }
    if (trace::writesValue(ev.kind))
      lastWrite[ev.obj] = e;
  }
  first_.assign(nt_ + 1, 0);
  for (size_t th = 0; th < nt_; ++th)
    first_[th + 1] = first_[th] + static_cast<uint32_t>(pos[th].size());
  changePos_.reserve(first_[nt_]);
  clocks_.reserve(size_t{first_[nt_]} * nt_);
  for (size_t th = 0; th < nt_; ++th) {
    changePos_.insert(changePos_.end(), pos[th].begin(), pos[th].end());
    clocks_.insert(clocks_.end(), clk[th].begin(), clk[th].end());
    std::vector<uint32_t>().swap(pos[th]);
    std::vector<uint32_t>().swap(clk[th]);
  }
}

uint32_t MustHappenBefore::changeAt(ThreadId t, uint32_t p) const {
  auto b = changePos_.begin() + first_[t],
       e = changePos_.begin() + first_[t + 1];
  auto it = std::upper_bound(b, e, p);
  if (it == b)
    return kNone;
  return static_cast<uint32_t>(it - changePos_.begin()) - 1;
}

uint32_t MustHappenBefore::entry(EventId e, ThreadId t) const {
  ThreadId te = idx_.trace().events[e].thread;
  uint32_t p = idx_.posInThread(e);
  if (t == te)
    return p + 1;
  uint32_t k = changeAt(te, p);
  return k == kNone ? 0 : clocks_[size_t{k} * nt_ + t];
}

EventId MustHappenBefore::firstSuccessorIn(ThreadId t, EventId x) const {
  ThreadId tx = idx_.trace().events[x].thread;
  if (t == tx)
    return idx_.poNext(x);
  uint32_t need = idx_.posInThread(x) + 1;
  // Clock entries grow along program order and change only at change
  // points: binary search them for the first that has seen x.
  size_t lo = first_[t], hi = first_[t + 1];
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (clocks_[mid * nt_ + tx] < need)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == first_[t + 1])
    return kNone;
  return idx_.threadEvents(t)[changePos_[lo]];
}

bool MustHappenBefore::ordered(EventId a, EventId b) const {
  if (a == b)
    return false;
  ThreadId ta = idx_.trace().events[a].thread;
  // a → b iff b's clock has seen a's position in a's thread.
  return entry(b, ta) >= idx_.posInThread(a) + 1;
}

} // namespace racepredict::analysis
