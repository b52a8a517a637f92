//===- solver/encode/slice_encoding.cpp - Nodes, order, semaphores --------===//
//
// docs/slicing.md, "The sliced formula": every atom over a node outside the
// slice is replaced by its value given that the node is after the cut, and
// every atom over a frozen node (window mode) by its value given that the
// node ran, as observed, before everything free.
//
#include "racepredict/solver/slice_encoding.h"

#include "racepredict/support/error.h"

#include <algorithm>

namespace racepredict::solver {

using analysis::eventUnit;
using analysis::halfUnit;
using analysis::kNone;
using analysis::LockSection;
using trace::Event;
using trace::EventKind;

SliceEncoding::SliceEncoding(const Slicer &slicer, const PairSlice &slice,
                             FormulaPool &pool, size_t eagerLocks,
                             bool decideEarly)
    : idx_(slicer.index()), slicer_(slicer), s_(slice), pool_(pool),
      vars_(idx_.numThreads()) {
  cut_ = nextVar_++;
  if (s_.a != kNone) {
    findForced();
    findLockedPasts();
    // A candidate that unit propagation refutes is decided on the slice's
    // data: its formula is never built (slice_forced_reads.cpp).
    if (decideEarly && (refutedEarly_ = noWriterForForcedRead()))
      return;
    encodeRace(); // a deadlock query adds its own (deadlock_query.cpp)
  }
  encodeSyncOrder();
  encodeSemaphores();
  encodeControlFlow();
  // Lock exclusion up front when the slice has few section pairs (most
  // traces); lazily otherwise (slice_refine.cpp).
  size_t pairs = 0;
  std::map<analysis::SymId, std::vector<uint32_t>> byLock;
  for (ThreadId t = 0; t < idx_.numThreads(); ++t) {
    // Sections open when the window starts, then those acquired in the
    // slice: a section wholly before the window needs no clause.
    uint32_t fe = s_.frozen[t] / 2;
    for (uint32_t si : idx_.sectionsOpenAfter(t, fe)) {
      const LockSection &ls = idx_.sections()[si];
      if (!(ls.releasedByWait &&
            halfUnit(idx_.posInThread(ls.release)) < s_.frozen[t]))
        byLock[ls.lock].push_back(si);
    }
    analysis::Span<uint32_t> secs = idx_.sectionsOfThread(t);
    auto it = std::lower_bound(
        secs.begin(), secs.end(), fe, [&](uint32_t si, uint32_t n) {
          return idx_.posInThread(idx_.sections()[si].acquire) < n;
        });
    for (; it != secs.end(); ++it) {
      const LockSection &ls = idx_.sections()[*it];
      if (idx_.posInThread(ls.acquire) >= s_.eventsIn(t))
        break;
      byLock[ls.lock].push_back(*it);
    }
  }
  for (auto &[lock, secs] : byLock)
    pairs += secs.size() * (secs.size() - 1) / 2;
  if (pairs <= eagerLocks)
    for (auto &[lock, secs] : byLock)
      for (size_t x = 0; x < secs.size(); ++x)
        for (size_t y = x + 1; y < secs.size(); ++y)
          addLockClause(secs[x], secs[y]);
  addInterveningUpFront(eagerLocks);
}

// "Nothing in between" for every option of every read that matters, when
// that is at most `budget` constraints: each lazy round is a solver check,
// and small slices are cheaper solved in one.
void SliceEncoding::addInterveningUpFront(size_t budget) {
  const auto &events = idx_.trace().events;
  std::unordered_map<analysis::SymId, std::vector<EventId>> writes;
  size_t total = 0;
  for (auto &[r, opts] : options_) {
    analysis::SymId x = events[r].obj;
    auto it = writes.find(x);
    if (it == writes.end()) {
      std::vector<EventId> ws;
      for (ThreadId u = 0; u < idx_.numThreads(); ++u) {
        analysis::EventSpan mine = idx_.writesOf(x, u);
        auto lo = std::lower_bound(
            mine.begin(), mine.end(), s_.frozen[u] / 2,
            [&](EventId w, uint32_t n) { return idx_.posInThread(w) < n; });
        for (; lo != mine.end() && eventStatus(*lo) == Status::Free; ++lo)
          ws.push_back(*lo);
      }
      it = writes.emplace(x, std::move(ws)).first;
    }
    total += opts.size() * it->second.size();
    if (total > budget)
      return;
  }
  for (auto &[r, opts] : options_)
    for (const Option &o : opts)
      for (EventId w2 : writes[events[r].obj])
        if (w2 != r && w2 != o.writer)
          addIntervening(r, o, w2);
}

std::vector<F> SliceEncoding::takeNew() {
  std::vector<F> out;
  out.swap(new_);
  return out;
}

std::vector<F> SliceEncoding::assumptions() {
  std::vector<F> out;
  for (const Escape &e : escapes_)
    out.push_back(pool_.mkNot(pool_.boolVar(e.var)));
  return out;
}

void SliceEncoding::add(F f) {
  if (f != pool_.top())
    new_.push_back(f);
}

SliceEncoding::Status SliceEncoding::status(ThreadId t, uint32_t unit) const {
  if (unit < s_.frozen[t])
    return Status::Frozen;
  return unit < s_.upto[t] ? Status::Free : Status::Absent;
}

SliceEncoding::Status SliceEncoding::eventStatus(EventId e) const {
  return status(idx_.trace().events[e].thread, eventUnit(idx_.posInThread(e)));
}

SliceEncoding::Status SliceEncoding::halfStatus(EventId e) const {
  return status(idx_.trace().events[e].thread, halfUnit(idx_.posInThread(e)));
}

OrderVar SliceEncoding::var(ThreadId t, uint32_t unit) {
  RACEPREDICT_ASSERT(status(t, unit) == Status::Free,
                     "slice encoding: a variable for a node not in the slice");
  auto &m = vars_[t];
  auto it = m.lower_bound(unit);
  if (it != m.end() && it->first == unit)
    return it->second;
  OrderVar v = nextVar_++;
  // Program order with the neighbouring named nodes of the thread; the
  // edge between those two stays (it is implied).
  if (it != m.end())
    add(pool_.lt(v, it->second));
  if (it != m.begin())
    add(pool_.lt(std::prev(it)->second, v));
  m.emplace_hint(it, unit, v);
  return v;
}

OrderVar SliceEncoding::eventVar(EventId e) {
  return var(idx_.trace().events[e].thread, eventUnit(idx_.posInThread(e)));
}

OrderVar SliceEncoding::halfVar(EventId e) {
  return var(idx_.trace().events[e].thread, halfUnit(idx_.posInThread(e)));
}

F SliceEncoding::before(ThreadId tx, uint32_t ux, ThreadId ty, uint32_t uy) {
  Status sx = status(tx, ux), sy = status(ty, uy);
  if (tx == ty)
    return ux < uy ? pool_.top() : pool_.bottom();
  if (sx == Status::Frozen && sy == Status::Frozen) {
    // Observed order; a half sits just before its event.
    auto when = [&](ThreadId t, uint32_t u) {
      EventId e = idx_.threadEvents(t)[u / 2];
      return 2 * uint64_t{e} + (u % 2);
    };
    return when(tx, ux) < when(ty, uy) ? pool_.top() : pool_.bottom();
  }
  if (sx == Status::Frozen || sy == Status::Absent)
    return pool_.top(); // (x is in the witness wherever this is used)
  if (sy == Status::Frozen || sx == Status::Absent)
    return pool_.bottom();
  return pool_.lt(var(tx, ux), var(ty, uy));
}

F SliceEncoding::beforeEv(EventId x, EventId y) {
  const auto &ev = idx_.trace().events;
  return before(ev[x].thread, eventUnit(idx_.posInThread(x)), ev[y].thread,
                eventUnit(idx_.posInThread(y)));
}

F SliceEncoding::in(ThreadId t, uint32_t unit) {
  switch (status(t, unit)) {
  case Status::Frozen:
    return pool_.top();
  case Status::Absent:
    return pool_.bottom();
  case Status::Free:
    break;
  }
  return pool_.lt(var(t, unit), cut_);
}

F SliceEncoding::out(ThreadId t, uint32_t unit) {
  switch (status(t, unit)) {
  case Status::Frozen:
    return pool_.bottom();
  case Status::Absent:
    return pool_.top();
  case Status::Free:
    break;
  }
  return pool_.le(cut_, var(t, unit));
}

uint32_t SliceEncoding::releaseUnit(const LockSection &s) const {
  uint32_t p = idx_.posInThread(s.release);
  return s.releasedByWait ? halfUnit(p) : eventUnit(p);
}

// Per thread, how many events a or b must follow (clipped at a or b).
uint32_t SliceEncoding::racePast(ThreadId t) const {
  const analysis::MustHappenBefore &mhb = slicer_.mhb();
  uint32_t past = std::max(mhb.entry(s_.a, t), mhb.entry(s_.b, t));
  for (EventId x : {s_.a, s_.b})
    if (idx_.trace().events[x].thread == t)
      past = std::min(past, idx_.posInThread(x));
  return past;
}

// Per thread, the events every witness of the race runs: its prefix up to
// what a or b must follow, within the slice.
void SliceEncoding::findForced() {
  forced_.assign(idx_.numThreads(), 0);
  for (ThreadId t = 0; t < idx_.numThreads(); ++t)
    forced_[t] = std::min(racePast(t), s_.eventsIn(t));
}

// race(a, b): O_a = O_b = C, plus the implied facts of the whole-trace
// query (race_encoding.cpp): per thread, the last event a or b must follow
// is before the cut, the first that must follow them is after it.
void SliceEncoding::encodeRace() {
  const analysis::MustHappenBefore &mhb = slicer_.mhb();
  EventId a = s_.a, b = s_.b;
  add(pool_.eq(eventVar(a), cut_));
  add(pool_.eq(eventVar(b), cut_));
  for (ThreadId t = 0; t < idx_.numThreads(); ++t) {
    const auto &te = idx_.threadEvents(t);
    uint32_t past = racePast(t);
    // (A derived must edge may name an event the slice does not hold:
    // the fact is implied anyway, and only helps the solver when named.)
    if (past > 0 && te[past - 1] != a && te[past - 1] != b &&
        status(t, eventUnit(past - 1)) != Status::Absent)
      add(in(t, eventUnit(past - 1)));
    EventId first =
        std::min(mhb.firstSuccessorIn(t, a), mhb.firstSuccessorIn(t, b));
    if (first != kNone && first != a && first != b)
      add(out(t, eventUnit(idx_.posInThread(first))));
  }
}

// A section S that a's (or b's) thread holds at the cut is acquired before
// it and released after it. A section C of S's lock in another thread that
// every witness completes (its release is below forced_) cannot overlap S,
// and cannot come after S's acquire (S is held to the cut): C's release,
// and everything that must precede it, precedes S's acquire. Reads inside
// S use this to drop writers that such a write must come between
// (concreteRead).
void SliceEncoding::findLockedPasts() {
  const analysis::MustHappenBefore &mhb = slicer_.mhb();
  size_t nt = idx_.numThreads();
  lockedPasts_.assign(nt, {});
  for (EventId x : {s_.a, s_.b}) {
    ThreadId tx = idx_.trace().events[x].thread;
    if (!lockedPasts_[tx].empty())
      continue; // a and b in one thread (not a candidate, but harmless)
    for (uint32_t si : idx_.sectionsOpenAfter(tx, idx_.posInThread(x))) {
      const LockSection &held = idx_.sections()[si];
      LockedPast lp{idx_.posInThread(held.acquire),
                    std::vector<uint32_t>(nt, 0)};
      bool any = false;
      for (ThreadId u = 0; u < nt; ++u) {
        if (u == tx)
          continue;
        for (uint32_t ci : idx_.sectionsOf(held.lock, u)) {
          const LockSection &c = idx_.sections()[ci];
          if (c.release == kNone || idx_.posInThread(c.release) >= forced_[u])
            break; // sections of u are in program order
          if (c.readMode && held.readMode)
            continue;
          for (ThreadId w = 0; w < nt; ++w)
            lp.before[w] = std::max(lp.before[w], mhb.entry(c.release, w));
          any = true;
        }
      }
      if (any)
        lockedPasts_[tx].push_back(std::move(lp));
    }
  }
}

// How many events of thread u precede read r in every witness of the race
// by the rule of findLockedPasts (0 if none does).
uint32_t SliceEncoding::mustPrecede(EventId r, ThreadId u) const {
  if (lockedPasts_.empty())
    return 0;
  ThreadId tr = idx_.trace().events[r].thread;
  uint32_t pr = idx_.posInThread(r), n = 0;
  for (const LockedPast &lp : lockedPasts_[tr])
    if (lp.acquirePos < pr)
      n = std::max(n, lp.before[u]);
  return n;
}

// Φ_mhb across threads, for the nodes of the slice.
void SliceEncoding::encodeSyncOrder() {
  const auto &events = idx_.trace().events;
  for (ThreadId t = 0; t < idx_.numThreads(); ++t) {
    const auto &te = idx_.threadEvents(t);
    if (idx_.forkOf(t) != kNone && !te.empty()) {
      uint32_t first =
          trace::hasTwoHalves(events[te[0]].kind) ? halfUnit(0) : eventUnit(0);
      if (status(t, first) == Status::Free) {
        EventId f = idx_.forkOf(t);
        F bef =
            before(events[f].thread, eventUnit(idx_.posInThread(f)), t, first);
        // A fork the cap left out (it must follow a blocked event; only a
        // thread's lone first half can be in the slice then): the thread
        // has not started, its first node is after the cut.
        add(bef == pool_.bottom() ? out(t, first) : bef);
      }
    }
    for (uint32_t p = s_.frozen[t] / 2; p < s_.eventsIn(t); ++p) {
      EventId e = te[p];
      const Event &ev = events[e];
      if (status(t, eventUnit(p)) != Status::Free)
        continue;
      switch (ev.kind) {
      case EventKind::Join: {
        const auto &child = idx_.threadEvents(ev.obj);
        if (!child.empty())
          add(beforeEv(child.back(), e));
        break;
      }
      case EventKind::Signal:
      case EventKind::Broadcast:
        for (EventId w : idx_.wokenBy(e)) {
          ThreadId tw = events[w].thread;
          uint32_t pw = idx_.posInThread(w);
          add(before(tw, halfUnit(pw), t, eventUnit(p)));
          if (status(tw, eventUnit(pw)) != Status::Absent)
            add(before(t, eventUnit(p), tw, eventUnit(pw)));
        }
        break;
      case EventKind::Barrier:
        for (EventId m : idx_.barrierGenerations()[idx_.barrierGeneration(e)])
          if (m != e)
            add(before(events[m].thread, halfUnit(idx_.posInThread(m)), t,
                       eventUnit(p)));
        break;
      case EventKind::Send:
      case EventKind::Recv:
        for (EventId q : idx_.channelPredecessors(e))
          add(beforeEv(q, e));
        break;
      default:
        break;
      }
    }
  }
}

BoolVar SliceEncoding::escapeFor(std::vector<EventId> helpers) {
  BoolVar v = pool_.newBoolVar();
  escapes_.push_back({v, std::move(helpers)});
  return v;
}

// The observed position of each named node (a wait's release half just
// before its event, as in before()). The cut is after everything: in the
// observed run every node of the slice ran.
std::vector<uint64_t> SliceEncoding::observedRanks() const {
  std::vector<uint64_t> rank(nextVar_, UINT64_MAX);
  for (ThreadId t = 0; t < vars_.size(); ++t)
    for (auto [unit, v] : vars_[t])
      rank[v] = 2 * uint64_t{idx_.threadEvents(t)[unit / 2]} + unit % 2;
  return rank;
}

} // namespace racepredict::solver
