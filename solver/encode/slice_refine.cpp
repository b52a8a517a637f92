//===- solver/encode/slice_refine.cpp - Schedules and lazy constraints ----===//
//
// A model's schedule: named nodes by (value, thread, unit); an unnamed
// event of the slice runs just before the next named node of its thread
// (only program order constrains it), and is in the witness iff that node
// is. The schedule is then swept for the two lazily added families: a
// section acquired while another thread holds the lock gets its exclusion
// clause, a read whose chosen writer is not the last write before it gets
// the "nothing in between" constraint for the write that intervened
// (docs/slicing.md, "Lazy constraints").
//
#include "racepredict/solver/slice_encoding.h"

#include "racepredict/support/error.h"

#include <algorithm>
#include <tuple>

namespace racepredict::solver {

using analysis::eventUnit;
using analysis::halfUnit;
using analysis::kNone;
using analysis::LockSection;
using trace::Event;
using trace::EventKind;

// Φ_lock for one pair of sections whose acquires are in the slice:
// O_r1 < O_a2 ∨ O_r2 < O_a1 ∨ O_a1 ≥ C ∨ O_a2 ≥ C, where a release outside
// the slice is after the cut (its disjunct is false), unless it could be in
// a witness: then an escape stands for "released before the other".
F SliceEncoding::lockClause(uint32_t x, uint32_t y) {
  const LockSection &s1 = idx_.sections()[x], &s2 = idx_.sections()[y];
  auto acqUnit = [&](const LockSection &s) {
    return eventUnit(idx_.posInThread(s.acquire));
  };
  std::vector<F> alts{out(s1.thread, acqUnit(s1)), out(s2.thread, acqUnit(s2))};
  auto releasedBefore = [&](uint32_t si, const LockSection &s,
                            const LockSection &o) {
    if (s.release == kNone)
      return;
    if (status(s.thread, releaseUnit(s)) != Status::Absent) {
      alts.push_back(before(s.thread, releaseUnit(s), o.thread, acqUnit(o)));
      return;
    }
    auto it = releaseEscape_.find(si);
    if (it == releaseEscape_.end()) {
      // (A wait's release is its first half: extending the slice by the
      // wait takes the half, capped there if the return cannot be in.)
      EventId r = slicer_.outsideRelease(s_, si);
      BoolVar v = r == kNone ? kNone : escapeFor({r});
      it = releaseEscape_.emplace(si, v).first;
    }
    if (it->second != kNone)
      alts.push_back(pool_.boolVar(it->second));
  };
  releasedBefore(x, s1, s2);
  releasedBefore(y, s2, s1);
  return pool_.mkOr(alts);
}

void SliceEncoding::addLockClause(uint32_t x, uint32_t y) {
  const LockSection &s1 = idx_.sections()[x], &s2 = idx_.sections()[y];
  if (s1.thread == s2.thread || (s1.readMode && s2.readMode))
    return;
  if (!lockPairs_.insert(std::minmax(x, y)).second)
    return;
  add(lockClause(x, y));
}

bool SliceEncoding::addIntervening(EventId r, const Option &o, EventId w2) {
  if (!intervening_.insert({r, o.writer, w2}).second)
    return false;
  // o → (w' before w ∨ r before w'); for the initial value, o → r before w'.
  F cond = beforeEv(r, w2);
  if (o.writer != kNone)
    cond = pool_.mkOr({beforeEv(w2, o.writer), cond});
  add(pool_.implies(pool_.boolVar(o.var), cond));
  return true;
}

SliceEncoding::Learned SliceEncoding::learned() const {
  Learned l;
  l.locks.assign(lockPairs_.begin(), lockPairs_.end());
  l.reads.assign(intervening_.begin(), intervening_.end());
  return l;
}

void SliceEncoding::relearn(const Learned &l) {
  for (auto [x, y] : l.locks)
    addLockClause(x, y);
  for (auto [r, w, w2] : l.reads) {
    auto it = options_.find(r);
    if (it == options_.end() || eventStatus(w2) == Status::Absent)
      continue;
    for (const Option &o : it->second)
      if (o.writer == w) {
        addIntervening(r, o, w2);
        break;
      }
  }
}

std::vector<Step> SliceEncoding::frozenPrefix() const {
  // Every event before the window in observed order, each first half
  // placed where the prefix first needs it (the pair_slice.cpp rule for
  // frozen halves is the same); empty if the observed order is not a
  // schedule (the witness then fails validation: window mode assumes it).
  std::vector<EventId> events(slicer_.options().windowBegin);
  for (EventId e = 0; e < events.size(); ++e)
    events[e] = e;
  auto steps = analysis::expandWitness(idx_, events);
  return steps ? *steps : std::vector<Step>{};
}

std::vector<Step>
SliceEncoding::schedule(const std::vector<int64_t> &order) const {
  const auto &events = idx_.trace().events;
  std::vector<Step> steps;
  int64_t c = order[cut_];
  std::vector<std::tuple<int64_t, ThreadId, uint32_t>> nodes;
  for (ThreadId t = 0; t < idx_.numThreads(); ++t) {
    const auto &te = idx_.threadEvents(t);
    const auto &m = vars_[t];
    for (uint32_t u = s_.frozen[t]; u < s_.upto[t]; ++u) {
      EventId e = te[u / 2];
      if (e == s_.a || e == s_.b)
        break;
      if (u % 2 == 0 && !trace::hasTwoHalves(events[e].kind))
        continue;
      auto it = m.lower_bound(u);
      if (it == m.end())
        break; // after the last named node: not needed, not in σ
      EventId named = te[it->first / 2];
      int64_t val = order[it->second];
      bool isAB = (named == s_.a || named == s_.b) && it->first % 2 == 1;
      if (val >= c && !isAB)
        break; // the named node (and so this unit) is after the cut
      nodes.emplace_back(isAB ? c - 1 : val, t, u);
    }
  }
  // Unnamed units share their named successor's value and sort before it
  // (same thread, smaller unit). Before a or b they sort at the very end.
  std::sort(nodes.begin(), nodes.end());
  for (auto &[val, t, u] : nodes)
    steps.push_back({idx_.threadEvents(t)[u / 2], u % 2 == 0});
  if (s_.a != kNone) {
    steps.push_back({s_.a, false});
    steps.push_back({s_.b, false});
  }
  return steps;
}

size_t SliceEncoding::refine(const std::vector<Step> &sigma,
                             const std::function<bool(BoolVar)> &boolValue) {
  const auto &events = idx_.trace().events;
  size_t added = 0;
  EventId begin = slicer_.options().windowBegin;
  // Lock holds: sections open when the window starts, then the free part.
  struct Hold {
    ThreadId thread;
    uint32_t section;
    bool read;
  };
  std::unordered_map<analysis::SymId, std::vector<Hold>> holds;
  for (ThreadId t = 0; t < idx_.numThreads(); ++t) {
    uint32_t fe = s_.frozen[t] / 2;
    for (uint32_t si : idx_.sectionsOpenAfter(t, fe)) {
      const LockSection &ls = idx_.sections()[si];
      if (ls.releasedByWait &&
          halfUnit(idx_.posInThread(ls.release)) < s_.frozen[t])
        continue; // released by a first half that ran before the window
      holds[ls.lock].push_back({t, si, ls.readMode});
    }
  }
  auto releaseHold = [&](analysis::SymId lock, ThreadId t) {
    auto &hs = holds[lock];
    for (auto it = hs.rbegin(); it != hs.rend(); ++it)
      if (it->thread == t) {
        hs.erase(std::next(it).base());
        return;
      }
  };
  auto acquireHold = [&](uint32_t si) {
    const LockSection &ls = idx_.sections()[si];
    for (const Hold &h : holds[ls.lock])
      if (h.thread != ls.thread && !(h.read && ls.readMode)) {
        size_t before = new_.size();
        addLockClause(h.section, si);
        added += new_.size() > before;
      }
    holds[ls.lock].push_back({ls.thread, si, ls.readMode});
  };
  // Last write per location in the schedule; before the first free write,
  // the last frozen one (kNone: none, the initial value).
  std::unordered_map<analysis::SymId, EventId> lastWrite;
  auto lastWriteOf = [&](analysis::SymId x) {
    auto it = lastWrite.find(x);
    if (it != lastWrite.end())
      return it->second;
    analysis::EventSpan ws = idx_.writesTo(x);
    const EventId *lf = std::lower_bound(ws.begin(), ws.end(), begin);
    return lf == ws.begin() ? kNone : lf[-1];
  };
  // A race schedule ends with a and b, which are not part of the prefix.
  size_t end = sigma.size() - (s_.a != kNone ? 2 : 0);
  for (size_t i = 0; i < end; ++i) {
    const Step &st = sigma[i];
    const Event &ev = events[st.event];
    if (st.half) {
      if (ev.kind == EventKind::Wait)
        releaseHold(ev.aux, ev.thread);
      continue;
    }
    switch (ev.kind) {
    case EventKind::Acquire:
    case EventKind::RAcquire:
      acquireHold(idx_.sectionAcquiredAt(st.event));
      break;
    case EventKind::Wait:
      acquireHold(idx_.sectionAcquiredAt(st.event));
      break;
    case EventKind::Release:
      releaseHold(ev.obj, ev.thread);
      break;
    default:
      break;
    }
    if (trace::readsValue(ev.kind)) {
      auto k = readK_.find(st.event);
      auto opts = options_.find(st.event);
      if (k != readK_.end() && opts != options_.end() &&
          boolValue(pool_.node(k->second).a)) {
        for (const Option &o : opts->second) {
          if (!boolValue(o.var))
            continue;
          EventId allowed = o.writer;
          if (allowed == kNone) {
            analysis::EventSpan ws = idx_.writesTo(ev.obj);
            const EventId *lf = std::lower_bound(ws.begin(), ws.end(), begin);
            allowed = lf == ws.begin() ? kNone : lf[-1];
          }
          EventId last = lastWriteOf(ev.obj);
          if (last != allowed && last != kNone &&
              addIntervening(st.event, o, last))
            ++added;
          break; // one chosen option suffices
        }
      }
    }
    if (trace::writesValue(ev.kind))
      lastWrite[ev.obj] = st.event;
  }
  return added;
}

} // namespace racepredict::solver
