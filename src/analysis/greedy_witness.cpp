//===- analysis/greedy_witness.cpp - Value-keeping greedy race schedules --===//
#include "racepredict/analysis/greedy_witness.h"

#include "racepredict/analysis/model_state.h"

#include <algorithm>
#include <unordered_map>
#include <utility>

namespace racepredict::analysis {

namespace {

/// Runs per step order: the first, then one after each repair. On `mixed`
/// 10K every schedule a repair found came from the first or second run
/// (bench/RESULTS.md); the bound keeps a hopeless candidate cheap.
constexpr int kRunsPerOrder = 8;

/// Writes held back until a read has run: write → the reads it waits for.
/// Learnt from stuck runs (see repairStuckReads).
using Delays = std::unordered_map<EventId, std::vector<EventId>>;

/// Where one greedy run stopped: σ and the state after it.
struct Run {
  std::vector<Step> sigma;
  ModelState state;
  bool reached = false; ///< a and b are next and both enabled
};

/// Whether running `e` now would let a read that matters (PairSlice::matters:
/// a later branch or a feeding write depends on it) see a value other than
/// its recorded one. A read that does not matter may see any value: no
/// branch the witness runs depends on it, and a write of its thread after
/// it that becomes unknown (⊥) cannot feed a read that matters without that
/// read failing this same test.
bool stuckAt(const TraceIndex &idx, const ModelState &st,
             const PairSlice &slice, EventId e) {
  return !st.wouldBeConcrete(e) && slice.matters(idx, e);
}

/// One greedy run (see the header): σ after which a and b are next and
/// enabled, or the σ at which every thread that may still move would read a
/// value other than its recorded one where that read matters, is blocked,
/// is at its cap, or is a write held back by `delays`. A step is applied only
/// when `blocked` allows it, so the run is the checker's replay of σ
/// (executeSchedule) and ends with the checker's own last test, not a second
/// replay (as closure_witness.cpp does). `targetsFirst`: a's and b's threads
/// move whenever they can; otherwise the step earliest in the observed trace
/// goes first.
Run greedyRun(const TraceIndex &idx, const PairSlice &slice,
              const std::vector<uint32_t> &cap, EventId a, EventId b,
              bool targetsFirst, const Delays &delays) {
  const trace::Trace &tr = idx.trace();
  ThreadId ta = tr.events[a].thread, tb = tr.events[b].thread;
  Run run{{}, ModelState(idx)};
  ModelState &st = run.state;
  auto heldBack = [&](EventId e) {
    auto it = delays.find(e);
    if (it == delays.end())
      return false;
    for (EventId r : it->second)
      if (!st.executed(r))
        return true;
    return false;
  };
  while (st.next(ta) != a || st.next(tb) != b) {
    bool found = false;
    Step best{};
    std::pair<bool, EventId> bestKey;
    for (ThreadId t = 0; t < idx.numThreads(); ++t) {
      EventId e = st.next(t);
      if (e == kNone || e == a || e == b)
        continue;
      Step s{e, trace::hasTwoHalves(tr.events[e].kind) && !st.inFirstHalf(t)};
      if (2 * idx.posInThread(e) + (s.half ? 0 : 1) >= cap[t])
        continue;
      std::pair<bool, EventId> key{targetsFirst && t != ta && t != tb, e};
      if ((found && !(key < bestKey)) ||
          (!s.half && stuckAt(idx, st, slice, e)) || heldBack(e) ||
          st.blocked(s))
        continue;
      found = true;
      best = s;
      bestKey = key;
    }
    if (!found)
      return run;
    st.apply(best);
    run.sigma.push_back(best);
  }
  run.reached = !raceEnabledAfter(st, idx, a, b);
  return run;
}

/// The value a read-like event must see to stay concrete.
int64_t seenValue(const trace::Trace &tr, const trace::Event &ev) {
  return ev.kind == trace::EventKind::AtomicRmw ? tr.rmwReadValue(ev)
                                                : ev.value;
}

/// A stuck run learns which writes to hold back (a bounded backtracking, in
/// the spirit of DPOR's "go back before the conflicting write"): a thread
/// stands at a read r of x that needs value v, and v was in x earlier in σ
/// (the last write of v, or the initial value) but other threads' writes
/// replaced it. Holding those writes back until r has run lets r see v in
/// the next run; a write of r's own thread in between rules this out (r
/// cannot move before it). Reads whose value no write of σ produced are left
/// to the other threads' progress. Returns whether anything new was learnt.
bool repairStuckReads(const TraceIndex &idx, const PairSlice &slice,
                      const Run &run, const std::vector<uint32_t> &cap,
                      EventId a, EventId b, Delays &delays) {
  const trace::Trace &tr = idx.trace();
  bool learnt = false;
  for (ThreadId t = 0; t < idx.numThreads(); ++t) {
    EventId r = run.state.next(t);
    if (r == kNone || r == a || r == b || 2 * idx.posInThread(r) + 1 >= cap[t])
      continue;
    const trace::Event &rev = tr.events[r];
    if (!trace::readsValue(rev.kind) || !stuckAt(idx, run.state, slice, r))
      continue;
    int64_t v = seenValue(tr, rev);
    // σ positions of the writes to x; the last that stored v.
    std::vector<size_t> writes;
    std::optional<size_t> lastOfV;
    std::optional<int64_t> init = idx.initialValue(rev.obj);
    for (size_t i = 0; i < run.sigma.size(); ++i) {
      const trace::Event &w = tr.events[run.sigma[i].event];
      if (run.sigma[i].half || !trace::writesValue(w.kind) || w.obj != rev.obj)
        continue;
      if (w.value == v)
        lastOfV = writes.size();
      writes.push_back(i);
    }
    size_t from = lastOfV ? *lastOfV + 1 : 0;
    if (!lastOfV && !(init && *init == v))
      continue;
    bool ownInBetween = false;
    for (size_t k = from; k < writes.size(); ++k)
      ownInBetween |= tr.events[run.sigma[writes[k]].event].thread == t;
    if (ownInBetween)
      continue;
    for (size_t k = from; k < writes.size(); ++k) {
      std::vector<EventId> &waits = delays[run.sigma[writes[k]].event];
      if (std::find(waits.begin(), waits.end(), r) != waits.end())
        continue;
      waits.push_back(r);
      learnt = true;
    }
  }
  return learnt;
}

} // namespace

std::optional<std::vector<Step>> findGreedyWitness(const TraceIndex &idx,
                                                   const PairSlice &slice,
                                                   EventId a, EventId b,
                                                   bool *repaired) {
  std::vector<uint32_t> cap(idx.numThreads());
  for (ThreadId t = 0; t < idx.numThreads(); ++t)
    cap[t] = slice.cap(idx, t);
  // Round 0 is both plain runs (observed order, then targets first); each
  // later round reruns an order that learnt something from its last stop.
  Delays delays[2];
  bool open[2] = {true, true};
  for (int round = 0; round < kRunsPerOrder; ++round)
    for (int order = 0; order < 2; ++order) {
      if (!open[order])
        continue;
      Run run = greedyRun(idx, slice, cap, a, b, order == 1, delays[order]);
      if (run.reached) {
        run.sigma.push_back({a});
        run.sigma.push_back({b});
        if (repaired)
          *repaired = round > 0;
        return std::move(run.sigma);
      }
      open[order] = repairStuckReads(idx, slice, run, cap, a, b, delays[order]);
    }
  return std::nullopt;
}

} // namespace racepredict::analysis
