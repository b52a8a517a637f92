//===- analysis/mhb.cpp - Must-happen-before vector clocks ----------------===//
#include "racepredict/analysis/mhb.h"

#include "mhb_internal.h"

#include <algorithm>
#include <chrono>

namespace racepredict::analysis {

using trace::Event;

unsigned __int128 ClockTable::mass(const TraceIndex &idx) const {
  std::vector<uint64_t> sums = store.sums();
  unsigned __int128 m = 0;
  for (ThreadId t = 0; t < nt; ++t) {
    size_t len = idx.threadEvents(t).size();
    for (size_t k = 0; k < pos[t].size(); ++k) {
      size_t span = (k + 1 < pos[t].size() ? pos[t][k + 1] : len) - pos[t][k];
      // The stored clocks hold no own entry: their sum is the others'.
      m += static_cast<unsigned __int128>(sums[clocks[t][k]]) * span;
    }
  }
  return m;
}

size_t ClockTable::changePoints() const {
  size_t n = 0;
  for (const auto &p : pos)
    n += p.size();
  return n;
}

// Value-forced edges (control flow, docs/semantics.md): a branch can only
// run if the reads it depends on see their observed values. When exactly
// one write in the whole trace stores the value a read r observed, and the
// initial value differs, that write must precede r whenever the branch
// runs: an edge writer → branch. (The derived rule of mhb_derived.cpp
// generalises it; the slicer takes this one writer into every slice.)
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

MustHappenBefore::MustHappenBefore(const TraceIndex &idx, MhbOptions opts)
    : idx_(idx) {
  auto start = std::chrono::steady_clock::now();
  // The explicit edges alone: one pass (their sources are all observed
  // before their targets).
  table_ = std::make_unique<ClockTable>(MhbPass(idx, nullptr, nullptr).run());
  stats_.passes = 1;
  if (opts.derived) {
    // The greatest fixpoint: the first pass assumes of every event not yet
    // reached what the observed order says, each later pass what the
    // previous one found; clocks only go down, and a pass that changes
    // nothing is a fixpoint, which is sound (docs/slicing.md). Stopped
    // early it is not: the explicit table stays then.
    DerivedFacts facts(idx);
    facts.fewLockThreads = opts.fewLockThreads;
    // Nothing to derive: the explicit clocks are the fixpoint.
    if (!facts.anyRule)
      opts.maxPasses = 0;
    stats_.derived = !facts.anyRule;
    std::unique_ptr<ClockTable> prev;
    unsigned __int128 mass = 0;
    for (unsigned p = 0; p < opts.maxPasses; ++p) {
      auto next =
          std::make_unique<ClockTable>(MhbPass(idx, prev.get(), &facts).run());
      ++stats_.passes;
      unsigned __int128 m = next->mass(idx);
      bool fixpoint = prev && m == mass;
      prev = std::move(next);
      mass = m;
      if (fixpoint) {
        table_ = std::move(prev);
        stats_.derived = true;
        break;
      }
    }
  }
  stats_.changePoints = table_->changePoints();
  stats_.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
}

MustHappenBefore::~MustHappenBefore() = default;

size_t MustHappenBefore::storedClocks() const { return stats_.changePoints; }

uint32_t MustHappenBefore::entry(EventId e, ThreadId t) const {
  return table_->entry(idx_.trace().events[e].thread, idx_.posInThread(e), t);
}

EventId MustHappenBefore::firstSuccessorIn(ThreadId t, EventId x) const {
  ThreadId tx = idx_.trace().events[x].thread;
  if (t == tx)
    return idx_.poNext(x);
  uint32_t need = idx_.posInThread(x) + 1;
  // Clock entries grow along program order and change only at change
  // points: binary search them for the first that has seen x.
  const auto &cs = table_->clocks[t];
  auto it = std::partition_point(cs.begin(), cs.end(), [&](Clock c) {
    return table_->store.get(c, tx) < need;
  });
  if (it == cs.end())
    return kNone;
  return idx_.threadEvents(t)[table_->pos[t][it - cs.begin()]];
}

bool MustHappenBefore::ordered(EventId a, EventId b) const {
  if (a == b)
    return false;
  ThreadId ta = idx_.trace().events[a].thread;
  // a → b iff b's clock has seen a's position in a's thread.
  return entry(b, ta) >= idx_.posInThread(a) + 1;
}

} // namespace racepredict::analysis
