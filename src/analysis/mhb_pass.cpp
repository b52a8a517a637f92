//===- analysis/mhb_pass.cpp - One pass of the must-happen-before clocks --===//
//
// The observed order is a linearisation of every must edge (each edge's
// source was observed first), so one pass in trace order computes the
// clocks of the explicit edges. The derived rules may also look ahead: the
// previous pass (or, before the first, the observed order) answers for
// events not reached yet.
//
#include "mhb_internal.h"

#include <algorithm>

namespace racepredict::analysis {

using trace::Event;
using trace::EventKind;

MhbPass::MhbPass(const TraceIndex &idx, const ClockTable *prev,
                 const DerivedFacts *facts)
    : idx_(idx), prev_(prev), facts_(facts), nt_(idx.numThreads()),
      table_(nt_) {}

uint32_t MhbPass::observed(EventId x, ThreadId u) const {
  const auto &te = idx_.threadEvents(u);
  return static_cast<uint32_t>(std::lower_bound(te.begin(), te.end(), x) -
                               te.begin());
}

uint32_t MhbPass::entryOf(EventId x, ThreadId u) const {
  ThreadId tx = idx_.trace().events[x].thread;
  uint32_t px = idx_.posInThread(x);
  if (x < at_)
    return table_.entry(tx, px, u);
  if (prev_)
    return prev_->entry(tx, px, u);
  return u == tx ? px + 1 : observed(x, u);
}

void MhbPass::entriesOf(EventId x, ClockEntries &out) const {
  ThreadId tx = idx_.trace().events[x].thread;
  uint32_t px = idx_.posInThread(x);
  out.clear();
  auto add = [&](ThreadId u, uint32_t v) {
    if (u == tx)
      v = px + 1;
    if (v != 0)
      out.emplace_back(u, v);
  };
  if (x < at_ || prev_) {
    const ClockTable &from = x < at_ ? table_ : *prev_;
    Clock c = from.at(tx, px);
    // The own entry is not stored: put it in its place.
    bool own = false;
    from.store.forEach(c, [&](ThreadId u, uint32_t v) {
      if (!own && u > tx) {
        add(tx, 0);
        own = true;
      }
      add(u, v);
    });
    if (!own)
      add(tx, 0);
  } else {
    // The observed order: everything observed before x (every thread:
    // only the first pass looks ahead without a previous one).
    for (ThreadId u = 0; u < nt_; ++u)
      add(u, observed(x, u));
  }
}

bool MhbPass::join(Clock &c, ThreadId self, EventId x) {
  Clock before = c;
  if (x < at_) {
    // This pass's clock of x, shared, not copied.
    ThreadId tx = idx_.trace().events[x].thread;
    uint32_t px = idx_.posInThread(x);
    c = table_.store.join(c, table_.at(tx, px), self, tx, px + 1);
  } else {
    entriesOf(x, scratch_);
    c = table_.store.raise(c, scratch_, self);
  }
  changed_ |= c != before;
  return c != before;
}

bool MhbPass::joinEntries(Clock &c, ThreadId self, const ClockEntries &from) {
  Clock before = c;
  c = table_.store.raise(c, from, self);
  changed_ |= c != before;
  return c != before;
}

void MhbPass::clip(EventId e, Clock &c) {
  ThreadId te = idx_.trace().events[e].thread;
  uint32_t pe = idx_.posInThread(e);
  Clock bound = prev_ ? prev_->at(te, pe) : 0;
  lower_.clear();
  table_.store.forEach(c, [&](ThreadId u, uint32_t v) {
    uint32_t b = prev_ ? prev_->store.get(bound, u) : observed(e, u);
    if (u != te && v > b)
      lower_.emplace_back(u, b);
  });
  c = table_.store.assign(c, lower_);
}

// Φ_mhb's edges (docs/semantics.md); each source precedes its target in
// the trace, so its clock is already final in this pass.
void MhbPass::explicitEdges(EventId e, Clock &c) {
  const Event &ev = idx_.trace().events[e];
  ThreadId self = ev.thread;
  if (idx_.posInThread(e) == 0)
    if (EventId f = idx_.forkOf(self); f != kNone && f < e)
      join(c, self, f);
  switch (ev.kind) {
  case EventKind::Join: {
    const auto &child = idx_.threadEvents(ev.obj);
    if (!child.empty() && child.back() < e)
      join(c, self, child.back());
    break;
  }
  case EventKind::Wait:
    if (ev.extra != kNone && ev.extra < e)
      join(c, self, ev.extra);
    break;
  case EventKind::Send:
  case EventKind::Recv:
    for (EventId p : idx_.channelPredecessors(e))
      join(c, self, p);
    break;
  case EventKind::Signal:
  case EventKind::Broadcast:
    // A notify needs every wait it woke to be waiting: their release
    // halves, hence the events before them, precede it.
    for (EventId w : idx_.wokenBy(e))
      if (EventId wp = idx_.poPrev(w); wp != kNone && wp < e)
        join(c, self, wp);
    break;
  case EventKind::Barrier:
    for (EventId m : idx_.barrierGenerations()[idx_.barrierGeneration(e)]) {
      EventId mp = idx_.poPrev(m);
      if (m != e && mp != kNone && mp < e)
        join(c, self, mp);
    }
    break;
  default:
    break;
  }
}

ClockTable MhbPass::run() {
  const trace::Trace &t = idx_.trace();
  std::vector<Clock> cur(nt_, 0);
  // Explicit edges only: the value-forced edges of forcedWriter, in O(1)
  // per read (the observed writer, if it is the only write of its value).
  std::vector<EventId> lastWrite(
      facts_ ? 0 : t.table(trace::NameSpace::Location).size(), kNone);
  std::vector<std::vector<EventId>> pendingForced(facts_ ? 0 : nt_);
  std::unique_ptr<DerivedRules> rules;
  if (facts_)
    rules = std::make_unique<DerivedRules>(*this, *facts_);
  for (EventId e = 0; e < t.events.size(); ++e) {
    at_ = e;
    const Event &ev = t.events[e];
    Clock &c = cur[ev.thread];
    changed_ = false;
    explicitEdges(e, c);
    Clock explicitOnly = c;
    if (rules) {
      rules->apply(e, c, changed_);
    } else if (ev.kind == EventKind::Branch) {
      auto joinForced = [&](EventId w) {
        if (w != kNone && w < e)
          join(c, ev.thread, w);
      };
      if (t.hasDeps(ev)) {
        auto [b, end] = t.deps(ev);
        for (; b != end; ++b)
          joinForced(MustHappenBefore::forcedWriter(idx_, *b));
      } else {
        // Reads before the previous plain branch were handled there.
        for (EventId w : pendingForced[ev.thread])
          joinForced(w);
        pendingForced[ev.thread].clear();
      }
    }
    if (changed_) {
      // Only what the rules joined can pass the bound: the explicit edges
      // hold in the previous pass (and the observed order) too, whose
      // clocks bound those joined here.
      if (facts_ && c != explicitOnly)
        clip(e, c);
      table_.append(ev.thread, idx_.posInThread(e), c);
    }
    if (!rules) {
      if (trace::readsValue(ev.kind)) {
        EventId w = lastWrite[ev.obj];
        if (w != kNone && idx_.uniqueValue(w) &&
            t.events[w].value == idx_.readValue(e)) {
          auto init = idx_.initialValue(ev.obj);
          if (!init || *init != t.events[w].value)
            pendingForced[ev.thread].push_back(w);
        }
      }
      if (trace::writesValue(ev.kind))
        lastWrite[ev.obj] = e;
    }
  }
  return std::move(table_);
}

} // namespace racepredict::analysis
