//===- solver/encode/read_consistency.cpp - Φ_cf: control-flow feasibility ===//
//
// Huang et al. §3.3/§4: an event is feasible when the branches before it
// are; a branch is feasible when the reads it depends on are concrete (read
// the observed value); a read is concrete when some value-concrete write of
// that value (or the initial value) is the last write before it. A write is
// value-concrete when the reads its value depends on are concrete: all
// earlier ones of its thread, or those of its dependence list (issue 20). Here
// every branch before the cut must be feasible (docs/semantics.md, Φ_cf).
//
// Booleans K_r ("r reads its observed value") and A_i ("every read-like and
// tryfail of this thread up to i is concrete / re-failing") are defined by
// implications only: they occur positively, and every justification chain
// strictly decreases in the order, so no cyclic self-support is possible.
// The A chain makes "all earlier reads" linear in size instead of quadratic.
//
#include "racepredict/solver/race_encoding.h"

namespace racepredict::solver {

using analysis::kNone;
using trace::Event;
using trace::EventKind;

namespace {
int64_t observedReadValue(const trace::Trace &t, const Event &e) {
  return e.kind == EventKind::AtomicRmw ? t.rmwReadValue(e) : e.value;
}
} // namespace

void MaximalEncoding::encodeControlFlow() {
  const trace::Trace &t = idx_.trace();
  size_t n = t.events.size();
  valueConcrete_.assign(n, pool_.top());
  readConcrete_.assign(n, pool_.top());
  std::vector<EventId> reads;
  for (EventId e = 0; e < n; ++e)
    if (trace::readsValue(t.events[e].kind))
      readConcrete_[e] = pool_.boolVar(pool_.newBoolVar());

  for (ThreadId th = 0; th < idx_.numThreads(); ++th) {
    F chain = pool_.top();   // A_i: all read-likes/tryfails so far
    std::vector<F> tryfails; // refail(f) of the tryfails so far
    for (EventId e : idx_.threadEvents(th)) {
      const Event &ev = t.events[e];
      if (trace::writesValue(ev.kind) && ev.kind != EventKind::AtomicRmw)
        valueConcrete_[e] = t.hasDeps(ev) ? depsConcrete(ev, tryfails) : chain;
      if (trace::readsValue(ev.kind) || ev.kind == EventKind::TryFail) {
        F own = ev.kind == EventKind::TryFail ? refailing(e) : readConcrete_[e];
        if (ev.kind == EventKind::TryFail)
          tryfails.push_back(own);
        F a = pool_.boolVar(pool_.newBoolVar());
        add(Label::Cf, pool_.implies(a, pool_.mkAnd({own, chain})));
        chain = a;
      }
      if (ev.kind == EventKind::AtomicRmw)
        valueConcrete_[e] = chain; // includes its own read half
      if (ev.kind == EventKind::Branch)
        add(Label::Cf,
            pool_.implies(in(e),
                          t.hasDeps(ev) ? depsConcrete(ev, tryfails) : chain));
    }
  }
  for (EventId e = 0; e < n; ++e)
    if (trace::readsValue(t.events[e].kind))
      add(Label::Rf, pool_.implies(readConcrete_[e], concreteRead(e)));
}

// A precise branch, or a write's value with a dependence list (issue 20):
// the listed reads are concrete and the earlier tryfails re-fail.
F MaximalEncoding::depsConcrete(const Event &ev,
                                const std::vector<F> &tryfails) {
  std::vector<F> parts(tryfails);
  auto [b, end] = idx_.trace().deps(ev);
  for (; b != end; ++b)
    parts.push_back(readConcrete_[*b]);
  return pool_.mkAnd(parts);
}

// conc(r): the last write before r (in σ) to its location is value-concrete
// and wrote the observed value, or there is none and the initial value is it.
F MaximalEncoding::concreteRead(EventId r) {
  const trace::Trace &t = idx_.trace();
  const Event &re = t.events[r];
  int64_t v = observedReadValue(t, re);
  const auto &writes = idx_.writesTo(re.obj);
  auto sameThread = [&](EventId x, EventId y) {
    return t.events[x].thread == t.events[y].thread;
  };
  // O_r < O_w' for a write w' that is not r: decided statically by program
  // order when w' is in r's thread.
  auto afterR = [&](EventId w2) {
    if (sameThread(w2, r))
      return w2 > r ? pool_.top() : pool_.bottom();
    return pool_.lt(r, w2);
  };
  std::vector<F> options;
  for (EventId w : writes) {
    if (w == r || t.events[w].value != v || (sameThread(w, r) && w > r))
      continue;
    std::vector<F> conj{pool_.lt(w, r), valueConcrete_[w]};
    for (EventId w2 : writes) {
      if (w2 == w || w2 == r)
        continue;
      F before = sameThread(w2, w) ? (w2 < w ? pool_.top() : pool_.bottom())
                                   : pool_.lt(w2, w);
      conj.push_back(pool_.mkOr({before, afterR(w2)}));
    }
    options.push_back(pool_.mkAnd(conj));
  }
  std::optional<int64_t> init = idx_.initialValue(re.obj);
  if (init && *init == v) {
    std::vector<F> conj;
    for (EventId w2 : writes)
      if (w2 != r)
        conj.push_back(afterR(w2));
    options.push_back(pool_.mkAnd(conj));
  }
  return pool_.mkOr(options);
}

// refail(f): another thread holds the lock in write mode when f executes.
F MaximalEncoding::refailing(EventId f) {
  const trace::Trace &t = idx_.trace();
  const Event &fe = t.events[f];
  std::vector<F> options;
  for (uint32_t s : idx_.sectionsOf(fe.obj)) {
    const analysis::LockSection &sec = idx_.sections()[s];
    if (sec.thread == fe.thread || sec.readMode)
      continue;
    std::vector<F> conj{pool_.lt(sec.acquire, f)};
    if (sec.release != kNone)
      conj.push_back(pool_.lt(f, releaseNode(sec)));
    options.push_back(pool_.mkAnd(conj));
  }
  return pool_.mkOr(options);
}

} // namespace racepredict::solver
