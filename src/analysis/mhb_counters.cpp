//===- analysis/mhb_counters.cpp - Derived order from counter values ------===//
//
// docs/slicing.md, "Derived order", counters. A location every write of
// which adds δ ∈ {−1, 0, +1} to the value its thread read of it just
// before, holding one lock throughout (a counter under a mutex, yarn's
// `twist(lock, BY, ±1)`, a barrier's count, a reference count), or is an
// atomic read-modify-write: when a read r of it is concrete, its last
// writer stored r's value, so that writer's own read (on which its value
// depends: all earlier reads, or its dependence list) was concrete, and so
// on back to the start — and no other write fits in between (the lock, or
// atomicity). So the writes before r are exactly that chain, and their
// δ add up to value(r) − start. Hence, for a branch that needs r:
//
//   increments before r ≥ value(r) − start + decrements that must precede r
//   decrements before r ≥ increments that must precede r − (value(r) − start)
//
// and, as for semaphore tokens, any that many increments (decrements) that
// may precede r include one whose clock entry for thread u is at least the
// k-th smallest: that part of u must precede the branch. A first write that
// sets the value (the root) is allowed when every other access must follow
// it; the start is then its value.
//
#include "mhb_internal.h"

#include <algorithm>
#include <map>

namespace racepredict::analysis {

using trace::Event;
using trace::EventKind;

namespace {
/// Whether write w is value-concrete only if read r is: the plain rule, or
/// r is among w's dependences (issue 20). A step whose value does not come
/// from its read of the counter breaks the chain argument above.
bool valueNeeds(const trace::Trace &t, const Event &w, EventId r) {
  if (!t.hasDeps(w))
    return true;
  auto [b, end] = t.deps(w);
  return std::find(b, end, r) != end;
}
} // namespace

void DerivedFacts::findCounters(const TraceIndex &idx) {
  const trace::Trace &t = idx.trace();
  size_t nLoc = t.table(trace::NameSpace::Location).size();
  counterOf.assign(nLoc, kNone);
  for (SymId x = 0; x < nLoc; ++x) {
    EventSpan acc = idx.accessesTo(x);
    if (idx.writesTo(x).empty())
      continue;
    Counter c;
    bool ok = true, haveLock = false;
    std::vector<SymId> locks; // held around every adding write
    std::map<ThreadId, EventId> lastAccess;
    for (EventId e : acc) {
      const Event &ev = t.events[e];
      auto prev = lastAccess.find(ev.thread);
      EventId r = prev == lastAccess.end() ? kNone : prev->second;
      lastAccess[ev.thread] = e;
      if (!trace::writesValue(ev.kind))
        continue;
      int64_t delta;
      if (ev.kind == EventKind::AtomicRmw) {
        delta = ev.value - t.rmwReadValue(ev);
      } else if (r != kNone && trace::readsValue(t.events[r].kind) &&
                 t.events[r].kind != EventKind::AtomicRmw &&
                 valueNeeds(t, ev, r)) {
        // Its thread's previous access read the location, in a section
        // still held at the write.
        std::vector<SymId> common;
        for (uint32_t si : idx.sectionsHolding(e)) {
          const LockSection &s = idx.sections()[si];
          if (s.acquire < r && !s.readMode)
            common.push_back(s.lock);
        }
        std::sort(common.begin(), common.end());
        if (haveLock) {
          std::vector<SymId> both;
          std::set_intersection(locks.begin(), locks.end(), common.begin(),
                                common.end(), std::back_inserter(both));
          common.swap(both);
        }
        locks.swap(common);
        haveLock = true;
        delta = ev.value - idx.readValue(r);
        if (locks.empty())
          ok = false;
      } else if (e == acc[0] && c.root == kNone) {
        c.root = e; // a first write that sets it
        c.start = ev.value;
        continue;
      } else {
        ok = false;
      }
      if (!ok || delta < -1 || delta > 1)
        break;
      if (delta == 1)
        c.incs.push_back(e);
      else if (delta == -1)
        c.decs.push_back(e);
    }
    if (!ok || (c.incs.empty() && c.decs.empty()))
      continue;
    if (c.root == kNone) {
      auto init = idx.initialValue(x);
      if (!init)
        continue; // no known start
      c.start = *init;
    }
    auto byThread = [&](EventId a, EventId b) {
      return t.events[a].thread < t.events[b].thread;
    };
    std::stable_sort(c.incs.begin(), c.incs.end(), byThread);
    std::stable_sort(c.decs.begin(), c.decs.end(), byThread);
    counterOf[x] = static_cast<uint32_t>(counters.size());
    counters.push_back(std::move(c));
  }
}

// A root counts only if every other access of its location follows it:
// checked with the previous pass's clocks (the fixpoint's hypothesis, like
// every look-ahead), once per pass.
void DerivedRules::checkRoots() {
  const trace::Trace &t = idx_.trace();
  for (size_t i = 0; i < facts_.counters.size(); ++i) {
    EventId root = facts_.counters[i].root;
    if (root == kNone)
      continue;
    ThreadId tr = t.events[root].thread;
    uint32_t pr = idx_.posInThread(root);
    for (EventId e : idx_.accessesTo(t.events[root].obj))
      if (e != root &&
          (t.events[e].thread == tr ? idx_.posInThread(e) < pr
                                    : pass_.entryOf(e, tr) <= pr)) {
        rootHolds_[i] = 0;
        break;
      }
  }
}

bool DerivedRules::counted(EventId r, Clock &c) {
  const trace::Trace &t = idx_.trace();
  const Event &re = t.events[r];
  uint32_t ci = facts_.counterOf[re.obj];
  if (ci == kNone || !rootHolds_[ci])
    return false;
  const Counter &k = facts_.counters[ci];
  ThreadId tr = re.thread;
  uint32_t pr = idx_.posInThread(r);
  // r precedes the branch being processed: this pass has its clock.
  Clock rc = pass_.reached(r);
  int64_t net = idx_.readValue(r) - k.start;
  int64_t incs = mustPrecede(k.incs, tr, pr, rc);
  int64_t decs = mustPrecede(k.decs, tr, pr, rc);
  ThreadId self = t.events[r].thread;
  bool grew = false;
  std::vector<EventId> may;
  // More increments than known are needed: the earliest ones that may do.
  if (net + decs > incs && mayPrecede(k.incs, tr, pr, may))
    grew |= joinKthSmallest(may, std::vector<int64_t>(may.size(), 1),
                            net + decs, self, c);
  if (incs - net > decs && mayPrecede(k.decs, tr, pr, may))
    grew |= joinKthSmallest(may, std::vector<int64_t>(may.size(), 1),
                            incs - net, self, c);
  return grew;
}

} // namespace racepredict::analysis
