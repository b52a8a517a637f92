//===- solver/encode/slice_values.cpp - Φ_cf over a slice -----------------===//
//
// read_consistency.cpp restricted to a slice: K_r ("r reads its observed
// value") only for the reads that matter (a branch in the slice depends on
// them, or a write that can feed such a read follows them), A_i ("all
// read-likes and tryfails of the thread so far are concrete") along the
// prefix of each thread that matters. A read's options are the writes of
// its value in the slice, the initial value (the value at the window's
// start in window mode), and an escape when a write outside the slice
// could feed it. "No other write in between" is added lazily
// (slice_refine.cpp), except for the read's own thread, which program
// order decides.
//
#include "racepredict/solver/slice_encoding.h"

#include <algorithm>

namespace racepredict::solver {

using analysis::eventUnit;
using analysis::kNone;
using analysis::LockSection;
using trace::Event;
using trace::EventKind;

namespace {

/// The last write of `loc` by thread t before its event at position p (p
/// may be the thread's length).
EventId lastOwnWrite(const analysis::TraceIndex &idx, ThreadId t, uint32_t p,
                     analysis::SymId loc) {
  analysis::EventSpan ws = idx.writesOf(loc, t);
  const auto &te = idx.threadEvents(t);
  const EventId *it =
      p < te.size() ? std::lower_bound(ws.begin(), ws.end(), te[p]) : ws.end();
  return it == ws.begin() ? kNone : it[-1];
}

} // namespace

void SliceEncoding::encodeControlFlow() {
  const trace::Trace &t = idx_.trace();
  for (ThreadId th = 0; th < idx_.numThreads(); ++th) {
    const auto &te = idx_.threadEvents(th);
    F chain = pool_.top();   // A_i: all read-likes/tryfails so far
    std::vector<F> tryfails; // refail(f) of the tryfails so far
    uint32_t begin = s_.frozen[th] / 2, end = chainEnd(th);
    for (uint32_t p = begin; p < end; ++p) {
      EventId e = te[p];
      const Event &ev = t.events[e];
      if (trace::readsValue(ev.kind) && s_.matters(idx_, e))
        readK_.emplace(e, pool_.boolVar(observedTrue(pool_.newBoolVar())));
      bool inChain = p < s_.readMatter[th];
      if (ev.kind == EventKind::TryFail &&
          (inChain || p < s_.tryfailMatter[th])) {
        F own = refailing(e);
        tryfails.push_back(own);
        if (inChain) {
          F a = pool_.boolVar(observedTrue(pool_.newBoolVar()));
          add(pool_.implies(a, pool_.mkAnd({own, chain})));
          chain = a;
        }
      } else if (trace::readsValue(ev.kind) && inChain) {
        F a = pool_.boolVar(observedTrue(pool_.newBoolVar()));
        add(pool_.implies(a, pool_.mkAnd({readK_.at(e), chain})));
        chain = a;
      }
      // The listed reads of a precise branch or write (those before the
      // frozen prefix are concrete) and the tryfails so far.
      auto depsConcrete = [&] {
        std::vector<F> parts(tryfails);
        auto [d, dend] = t.deps(ev);
        for (; d != dend; ++d)
          if (idx_.posInThread(*d) >= begin)
            parts.push_back(readK_.at(*d));
        return pool_.mkAnd(parts);
      };
      // vc(w) for a write at e: the chain before it (an rmw includes its
      // own read half), or its dependences. Only defined while the chain
      // covers the position (then every dependence matters too).
      if (valueTracked(e))
        chainAt_[e] = t.hasDeps(ev) ? depsConcrete() : chain;
      if (ev.kind == EventKind::Branch &&
          status(th, eventUnit(p)) == Status::Free) {
        F need = t.hasDeps(ev) ? depsConcrete() : chain;
        // (Only a real constraint names the branch: an unnamed node costs
        // the solver nothing.)
        if (need != pool_.top())
          add(pool_.implies(in(th, eventUnit(p)), need));
      }
    }
  }
  for (auto &[r, k] : readK_) {
    F conc = concreteRead(r);
    if (conc == pool_.bottom())
      impossible_.push_back(r);
    add(pool_.implies(k, conc));
  }
}

// The end of the prefix of thread th that Φ_cf covers: its events in the
// slice, up to a or b.
uint32_t SliceEncoding::chainEnd(ThreadId th) const {
  uint32_t end = s_.eventsIn(th);
  for (EventId x : {s_.a, s_.b})
    if (x != kNone && idx_.trace().events[x].thread == th)
      end = std::min(end, idx_.posInThread(x));
  return end;
}

// Whether write w gets vc(w) (chainAt_): it is in the covered prefix of
// its thread, and the chain reaches it (an rmw includes its own read half;
// only there does every dependence of it matter too).
bool SliceEncoding::valueTracked(EventId w) const {
  const Event &ev = idx_.trace().events[w];
  ThreadId th = ev.thread;
  uint32_t p = idx_.posInThread(w);
  if (!trace::writesValue(ev.kind) || p < s_.frozen[th] / 2 ||
      p >= chainEnd(th))
    return false;
  return ev.kind == EventKind::AtomicRmw ? p < s_.readMatter[th]
                                         : p <= s_.readMatter[th];
}

// The writers conc(r) offers over the slice (docs/slicing.md), at most
// `limit` of them, in the order of its options. The read's own thread
// decides statically: its last earlier write of the location, if free, is
// the only option from that thread and every other option must come after
// it. The last write of the location in each other thread that precedes r
// in every witness (findLockedPasts) overwrites any writer that must
// precede it, and the initial value.
SliceEncoding::ReadOptions SliceEncoding::optionWriters(EventId r,
                                                        size_t limit) const {
  const trace::Trace &t = idx_.trace();
  const Event &re = t.events[r];
  ThreadId tr = re.thread;
  int64_t v = idx_.readValue(r);
  ReadOptions ro;
  ro.own = lastOwnWrite(idx_, tr, idx_.posInThread(r), re.obj);
  ro.ownFree = ro.own != kNone && eventStatus(ro.own) == Status::Free;
  std::vector<EventId> between;
  for (ThreadId u = 0; u < idx_.numThreads(); ++u)
    if (uint32_t n = u == tr ? 0 : mustPrecede(r, u)) {
      EventId w2 = lastOwnWrite(idx_, u, n, re.obj);
      if (w2 != kNone && eventStatus(w2) == Status::Free)
        between.push_back(w2);
    }
  auto overwritten = [&](EventId w) {
    for (EventId w2 : between)
      if (w2 != w && slicer_.mhb().ordered(w, w2))
        return true;
    return false;
  };
  // Free writes of the value, per thread by binary search: the frozen
  // ones are summed up by the value at the window's start below.
  analysis::EventSpan ws = idx_.writesOfValue(re.obj, v);
  for (ThreadId tw = 0; tw < idx_.numThreads() && !ws.empty(); ++tw) {
    if (tw == tr) {
      if (ro.writers.size() < limit && ro.ownFree &&
          t.events[ro.own].value == v && ro.own != r && valueTracked(ro.own) &&
          !overwritten(ro.own))
        ro.writers.push_back(ro.own);
      continue;
    }
    auto lo = std::lower_bound(
        ws.begin(), ws.end(), std::make_pair(tw, s_.frozen[tw] / 2),
        [&](EventId w, std::pair<ThreadId, uint32_t> k) {
          return std::make_pair(t.events[w].thread, idx_.posInThread(w)) < k;
        });
    for (auto it = lo; it != ws.end() && t.events[*it].thread == tw; ++it) {
      if (ro.writers.size() >= limit)
        return ro;
      EventId w = *it;
      if (eventStatus(w) != Status::Free)
        break;
      if (slicer_.mhb().ordered(r, w))
        break; // so are the later writes of tw
      // (An untracked one cannot occur: the slice marks the reads before w.)
      if (valueTracked(w) && !overwritten(w))
        ro.writers.push_back(w);
    }
  }
  // The initial value, or in window mode the value at the window's start
  // (the last frozen write): no free write of the read's thread before it.
  std::optional<int64_t> start = idx_.initialValue(re.obj);
  analysis::EventSpan all = idx_.writesTo(re.obj);
  const EventId *lastFrozen =
      std::lower_bound(all.begin(), all.end(), slicer_.options().windowBegin);
  if (lastFrozen != all.begin())
    start = t.events[lastFrozen[-1]].value;
  if (ro.writers.size() < limit && start && *start == v && !ro.ownFree &&
      between.empty())
    ro.writers.push_back(kNone);
  return ro;
}

// conc(r) over the slice: one Boolean per option, so that the lazy
// "nothing in between" constraints can be attached to it, and an escape
// when a write outside the slice could feed r.
F SliceEncoding::concreteRead(EventId r) {
  ReadOptions ro = optionWriters(r, SIZE_MAX);
  analysis::EventSpan all = idx_.writesTo(idx_.trace().events[r].obj);
  const EventId *last = std::lower_bound(all.begin(), all.end(), r);
  EventId observed = last == all.begin() ? kNone : last[-1];
  if (observed != kNone && observed < slicer_.options().windowBegin)
    observed = kNone; // the value at the window's start
  std::vector<F> alts;
  for (EventId w : ro.writers) {
    F cond = pool_.top(); // (the initial value)
    if (w != kNone && w == ro.own) {
      cond = chainAt_.at(w);
    } else if (w != kNone) {
      std::vector<F> conj{beforeEv(w, r), chainAt_.at(w)};
      if (ro.ownFree)
        conj.push_back(beforeEv(ro.own, w));
      cond = pool_.mkAnd(conj);
    }
    BoolVar o = pool_.newBoolVar();
    if (w == observed)
      observedTrue(o);
    options_[r].push_back({w, o});
    add(pool_.implies(pool_.boolVar(o), cond));
    alts.push_back(pool_.boolVar(o));
  }
  std::vector<EventId> outside = slicer_.outsideFeeders(s_, r);
  if (!outside.empty())
    alts.push_back(pool_.boolVar(escapeFor(std::move(outside))));
  return pool_.mkOr(alts);
}

// refail(f): another thread holds the lock in write mode when f executes.
F SliceEncoding::refailing(EventId f) {
  const Event &fe = idx_.trace().events[f];
  std::vector<F> alts;
  for (ThreadId u = 0; u < idx_.numThreads(); ++u) {
    if (u == fe.thread)
      continue;
    for (uint32_t si : idx_.sectionsOf(fe.obj, u)) {
      const LockSection &sec = idx_.sections()[si];
      if (idx_.posInThread(sec.acquire) >= s_.eventsIn(u))
        break;
      if (sec.readMode)
        continue;
      std::vector<F> conj{beforeEv(sec.acquire, f)};
      if (sec.release != kNone)
        conj.push_back(before(fe.thread, eventUnit(idx_.posInThread(f)), u,
                              releaseUnit(sec)));
      alts.push_back(pool_.mkAnd(conj));
    }
  }
  std::vector<EventId> outside = slicer_.outsideHolders(s_, f);
  if (!outside.empty())
    alts.push_back(pool_.boolVar(escapeFor(std::move(outside))));
  return pool_.mkOr(alts);
}

} // namespace racepredict::solver
