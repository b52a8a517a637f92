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
    uint32_t begin = s_.frozen[th] / 2, end = s_.eventsIn(th);
    for (uint32_t p = begin; p < end; ++p) {
      EventId e = te[p];
      if (e == s_.a || e == s_.b)
        break;
      const Event &ev = t.events[e];
      if (trace::readsValue(ev.kind) && s_.matters(idx_, e))
        readK_.emplace(e, pool_.boolVar(pool_.newBoolVar()));
      bool inChain = p < s_.readMatter[th];
      if (ev.kind == EventKind::TryFail &&
          (inChain || p < s_.tryfailMatter[th])) {
        F own = refailing(e);
        tryfails.push_back(own);
        if (inChain) {
          F a = pool_.boolVar(pool_.newBoolVar());
          add(pool_.implies(a, pool_.mkAnd({own, chain})));
          chain = a;
        }
      } else if (trace::readsValue(ev.kind) && inChain) {
        F a = pool_.boolVar(pool_.newBoolVar());
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
      if (trace::writesValue(ev.kind) &&
          (ev.kind == EventKind::AtomicRmw ? p < s_.readMatter[th]
                                           : p <= s_.readMatter[th]))
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

// conc(r) over the slice (docs/slicing.md): one Boolean per option, so that
// the lazy "nothing in between" constraints can be attached to it.
F SliceEncoding::concreteRead(EventId r) {
  const trace::Trace &t = idx_.trace();
  const Event &re = t.events[r];
  ThreadId tr = re.thread;
  int64_t v = idx_.readValue(r);
  uint32_t pr = idx_.posInThread(r);
  // The read's own thread decides statically: its last earlier write of
  // the location, if free, is the only option from that thread and every
  // other option must come after it.
  EventId own = lastOwnWrite(idx_, tr, pr, re.obj);
  bool ownFree = own != kNone && eventStatus(own) == Status::Free;
  // The last write of the location in each other thread that precedes r
  // in every witness (findLockedPasts): a writer that must precede one of
  // them cannot be r's last writer, and neither can the initial value.
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
  std::vector<F> alts;
  auto option = [&](EventId w, F cond) {
    BoolVar o = pool_.newBoolVar();
    options_[r].push_back({w, o});
    add(pool_.implies(pool_.boolVar(o), cond));
    alts.push_back(pool_.boolVar(o));
  };
  // Free writes of the value, per thread by binary search: the frozen
  // ones are summed up by the value at the window's start below.
  analysis::EventSpan ws = idx_.writesOfValue(re.obj, v);
  for (ThreadId tw = 0; tw < idx_.numThreads() && !ws.empty(); ++tw) {
    if (tw == tr) {
      if (ownFree && t.events[own].value == v && own != r &&
          chainAt_.count(own) && !overwritten(own))
        option(own, chainAt_.at(own));
      continue;
    }
    auto lo = std::lower_bound(
        ws.begin(), ws.end(), std::make_pair(tw, s_.frozen[tw] / 2),
        [&](EventId w, std::pair<ThreadId, uint32_t> k) {
          return std::make_pair(t.events[w].thread, idx_.posInThread(w)) < k;
        });
    for (auto it = lo; it != ws.end() && t.events[*it].thread == tw; ++it) {
      EventId w = *it;
      if (eventStatus(w) != Status::Free)
        break;
      if (slicer_.mhb().ordered(r, w))
        break; // so are the later writes of tw
      auto vc = chainAt_.find(w);
      if (vc == chainAt_.end() || overwritten(w))
        continue; // (the first cannot happen: the slice marks the reads
                  // before w)
      std::vector<F> conj{beforeEv(w, r), vc->second};
      if (ownFree)
        conj.push_back(beforeEv(own, w));
      option(w, pool_.mkAnd(conj));
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
  if (start && *start == v && !ownFree && between.empty())
    option(kNone, pool_.top());
  std::vector<EventId> outside = slicer_.outsideFeeders(s_, r);
  if (!outside.empty())
    alts.push_back(pool_.boolVar(escapeFor(std::move(outside))));
  return pool_.mkOr(alts);
}

// The same implications as the formula, followed by unit propagation: a
// branch every witness runs (encodeRace) needs K_r, either through its
// precise dependences or, without them, through the chain A_i (which holds
// K_r below readMatter), and K_r implies conc(r) = false.
bool SliceEncoding::impossibleReadForced() const {
  const trace::Trace &t = idx_.trace();
  if (forced_.empty())
    return false; // not a race query
  for (EventId r : impossible_) {
    ThreadId th = t.events[r].thread;
    const auto &te = idx_.threadEvents(th);
    uint32_t pr = idx_.posInThread(r);
    for (uint32_t q = pr + 1; q < forced_[th]; ++q) {
      const trace::Event &y = t.events[te[q]];
      if (y.kind != EventKind::Branch ||
          status(th, eventUnit(q)) != Status::Free)
        continue;
      if (!t.hasDeps(y)) {
        if (pr < s_.readMatter[th])
          return true;
        continue;
      }
      auto [d, end] = t.deps(y);
      if (std::find(d, end, r) != end)
        return true;
    }
  }
  return false;
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
