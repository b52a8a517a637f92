//===- analysis/mhb_derived.cpp - Edges implied by values, locks, counts --===//
//
// docs/slicing.md, "Derived order". Each rule joins into the clock of an
// event y what every schedule containing y must have run before it, given
// the clocks of the events it looks at:
//
//  * reads-from: a branch needs each read it depends on to see its
//    observed value v, so some write of v that can be the read's last
//    writer precedes the read — hence the meet (entry-wise minimum) of the
//    clocks of all such writes precedes the branch. A write cannot be the
//    last writer if it must follow the read, or must precede another write
//    of the location that must precede the read.
//  * lock exclusion: if y, inside a section of lock m, must follow the
//    acquire of another thread's section of m, it must follow its release
//    (the sections cannot overlap, and the other one cannot come second).
//  * semaphore counts: a wait needs 1 + (waits that must precede it) −
//    (initial count) tokens before it; per thread, the smallest clock
//    entry any such set of posts can have is the k-th smallest.
//
// Clocks of events the pass has not reached come from the previous pass
// (or the observed order): the fixpoint argument of docs/slicing.md.
//
#include "mhb_internal.h"

#include <algorithm>
#include <tuple>

namespace racepredict::analysis {

using trace::Event;
using trace::EventKind;

namespace {

constexpr size_t kRecent = 64;

/// Runs of a span sorted by (thread, index): calls f(thread, lo, hi). A
/// run's end by binary search: a polled location has one long run per
/// writer, and every read of it walks the span (issue 17's try-lock
/// spinners: 200K events, 23 s in a linear walk).
template <typename F>
void forEachThreadRun(const trace::Trace &t, EventSpan s, F f) {
  const EventId *b = s.begin();
  while (b != s.end()) {
    ThreadId u = t.events[*b].thread;
    const EventId *e =
        std::upper_bound(b, s.end(), u, [&](ThreadId x, EventId w) {
          return x < t.events[w].thread;
        });
    f(u, b, e);
    b = e;
  }
}

/// The first event of [lo, hi) (one thread, program order) at position
/// >= p.
const EventId *firstFrom(const TraceIndex &idx, const EventId *lo,
                         const EventId *hi, uint32_t p) {
  return std::lower_bound(
      lo, hi, p, [&](EventId x, uint32_t q) { return idx.posInThread(x) < q; });
}

} // namespace

DerivedFacts::DerivedFacts(const TraceIndex &idx) {
  const trace::Trace &t = idx.trace();
  size_t nLock = t.table(trace::NameSpace::Lock).size();
  lockThreads.resize(nLock);
  for (SymId m = 0; m < nLock; ++m) {
    std::vector<ThreadId> ts;
    for (uint32_t si : idx.sectionsOf(m))
      ts.push_back(idx.sections()[si].thread);
    std::sort(ts.begin(), ts.end());
    ts.erase(std::unique(ts.begin(), ts.end()), ts.end());
    if (ts.size() > 1)
      lockThreads[m] = std::move(ts);
  }
  size_t nSem = t.table(trace::NameSpace::Sem).size();
  semWaits.resize(nSem);
  semSources.resize(nSem);
  auto byThread = [&](EventId x, EventId y) {
    return t.events[x].thread < t.events[y].thread;
  };
  for (SymId s = 0; s < nSem; ++s) {
    for (EventId e : idx.semEvents(s))
      (t.events[e].kind == EventKind::SemWait ? semWaits : semSources)[s]
          .push_back(e);
    std::stable_sort(semWaits[s].begin(), semWaits[s].end(), byThread);
    std::stable_sort(semSources[s].begin(), semSources[s].end(), byThread);
  }
  findCounters(idx);
  for (const auto &ts : lockThreads)
    anyRule |= !ts.empty();
  for (const auto &ws : semWaits)
    anyRule |= !ws.empty();
  for (ThreadId th = 0; th < idx.numThreads() && !anyRule; ++th) {
    bool read = false;
    for (EventId e : idx.threadEvents(th)) {
      EventKind k = t.events[e].kind;
      if (k == EventKind::Branch && read) {
        anyRule = true;
        break;
      }
      read |= trace::readsValue(k) || k == EventKind::TryFail;
    }
  }
}

DerivedRules::DerivedRules(MhbPass &pass, const DerivedFacts &facts)
    : pass_(pass), idx_(pass.index()), facts_(facts), nt_(idx_.numThreads()),
      pending_(nt_), recentDone_(nt_, std::vector<EventId>(kRecent, kNone)),
      open_(nt_), lastPlain_(nt_, 0), rootHolds_(facts.counters.size(), 1),
      closed_(2 * facts.lockThreads.size(), 0) {
  checkRoots();
}

bool DerivedRules::apply(EventId e, Clock &c, bool changed) {
  const Event &ev = idx_.trace().events[e];
  bool opened = updateOpen(e);
  bool grew = false;
  if (ev.kind == EventKind::Branch)
    grew |= readsFeeding(e, c);
  // Exclusion and counts feed each other: repeat until both are stable.
  for (bool again = true; again;) {
    again = false;
    if (ev.kind == EventKind::SemWait)
      again |= tokens(e, c);
    if (opened || changed || grew || again)
      again |= exclusion(e, c);
    grew |= again;
    opened = changed = false;
  }
  if (trace::readsValue(ev.kind))
    pending_[ev.thread].push_back(e);
  return grew;
}

bool DerivedRules::updateOpen(EventId e) {
  const Event &ev = idx_.trace().events[e];
  auto &open = open_[ev.thread];
  if (ev.kind == EventKind::Release || ev.kind == EventKind::Wait)
    for (size_t i = open.size(); i-- > 0;)
      if (idx_.sections()[open[i]].release == e) {
        open.erase(open.begin() + static_cast<ptrdiff_t>(i));
        break;
      }
  if (ev.kind != EventKind::Acquire && ev.kind != EventKind::RAcquire &&
      ev.kind != EventKind::Wait)
    return false;
  uint32_t si = idx_.sectionAcquiredAt(e);
  if (si == kNone || facts_.lockThreads[idx_.sections()[si].lock].empty())
    return false;
  open.push_back(si);
  return true;
}

bool DerivedRules::readsFeeding(EventId y, Clock &c) {
  const trace::Trace &t = idx_.trace();
  const Event &ev = t.events[y];
  ThreadId u = ev.thread;
  std::vector<EventId> reads;
  if (!t.hasDeps(ev)) {
    reads.swap(pending_[u]);
    lastPlain_[u] = idx_.posInThread(y);
  } else {
    auto [d, end] = t.deps(ev);
    for (; d != end; ++d)
      // Reads before the last plain branch were joined there.
      if (idx_.posInThread(*d) >= lastPlain_[u])
        reads.push_back(*d);
  }
  bool grew = false;
  for (EventId r : reads) {
    EventId &slot = recentDone_[u][r % kRecent];
    if (slot == r)
      continue; // joined at an earlier branch of u: y inherits it
    slot = r;
    if (meetOfWriters(r, meet_))
      grew |= pass_.joinEntries(c, u, meet_);
    grew |= counted(r, c);
  }
  return grew;
}

bool DerivedRules::meetOfWriters(EventId r, ClockEntries &meet) {
  const trace::Trace &t = idx_.trace();
  const Event &re = t.events[r];
  ThreadId tr = re.thread;
  uint32_t pr = idx_.posInThread(r);
  int64_t v = idx_.readValue(r);
  Clock rc = pass_.reached(r); // r precedes the branch being processed
  // Per thread that writes the location: its last write that must precede
  // r (`known`), and the first position of its writes that may still be
  // r's last writer (`low`).
  struct Writer {
    ThreadId u;
    EventId known;
    uint32_t low;
  };
  std::vector<Writer> writers;
  forEachThreadRun(
      t, idx_.writesByThread(re.obj),
      [&](ThreadId u, const EventId *lo, const EventId *hi) {
        uint32_t bound = u == tr ? pr : pass_.get(rc, u);
        const EventId *it = firstFrom(idx_, lo, hi, bound);
        EventId k = it == lo ? kNone : it[-1];
        writers.push_back({u, k, k == kNone ? 0 : idx_.posInThread(k)});
      });
  bool anyKnown = false;
  for (const Writer &k : writers) {
    if (k.known == kNone)
      continue;
    anyKnown = true;
    // A write that must precede k.known cannot be r's last writer.
    for (Writer &w : writers)
      if (w.u != k.u)
        w.low = std::max(w.low, pass_.entryOf(k.known, w.u));
  }
  auto init = idx_.initialValue(re.obj);
  if (!anyKnown && init && *init == v)
    return false; // r may read the initial value: nothing is needed
  bool any = false;
  size_t wi = 0;
  forEachThreadRun(t, idx_.writesOfValue(re.obj, v),
                   [&](ThreadId u, const EventId *lo, const EventId *hi) {
                     while (writers[wi].u != u)
                       ++wi;
                     const Writer &wr = writers[wi];
                     EventId w;
                     if (u == tr) {
                       // Only the thread's last write before r can feed it.
                       w = wr.known;
                       if (w == kNone || t.events[w].value != v ||
                           idx_.posInThread(w) < wr.low)
                         return;
                     } else {
                       const EventId *it = firstFrom(idx_, lo, hi, wr.low);
                       if (it == hi)
                         return;
                       w = *it;
                       if (pass_.entryOf(w, tr) > pr)
                         return; // w (and every later write of u) must follow r
                     }
                     // The earliest possible writer of u: a later one needs
                     // more.
                     if (!any) {
                       pass_.entriesOf(w, meet);
                       any = true;
                       return;
                     }
                     // The meet only keeps entries all of them have.
                     pass_.entriesOf(w, entries_);
                     size_t kept = 0;
                     auto it = entries_.begin();
                     for (auto [x, e] : meet) {
                       while (it != entries_.end() && it->first < x)
                         ++it;
                       if (it != entries_.end() && it->first == x)
                         meet[kept++] = {x, std::min(e, it->second)};
                     }
                     meet.resize(kept);
                   });
  // No write can feed r: the branch never runs; nothing is derived.
  return any;
}

EventId DerivedRules::releaseToFollow(const LockSection &b, ThreadId t,
                                      uint32_t known) const {
  if (known == 0)
    return kNone;
  const auto &sections = idx_.sections();
  // The latest section of t on the lock whose acquire e must follow.
  Span<uint32_t> secs = idx_.sectionsOf(b.lock, t);
  auto it = std::lower_bound(
      secs.begin(), secs.end(), known, [&](uint32_t si, uint32_t know) {
        return idx_.posInThread(sections[si].acquire) < know;
      });
  const LockSection *a = nullptr;
  while (it != secs.begin()) {
    const LockSection &s = sections[*--it];
    if (!(s.readMode && b.readMode)) {
      a = &s;
      break;
    }
  }
  if (!a || a->release == kNone)
    return kNone; // (never released: e cannot run; nothing derived)
  // A wait releases in its first half: what precedes it is known.
  EventId src = a->releasedByWait ? idx_.poPrev(a->release) : a->release;
  if (src == kNone || known > idx_.posInThread(src))
    return kNone;
  return src;
}

bool DerivedRules::exclusion(EventId e, Clock &c) {
  ThreadId u = idx_.trace().events[e].thread;
  const auto &sections = idx_.sections();
  bool grew = false, again = true;
  auto check = [&](const LockSection &b, ThreadId t) {
    if (t == u)
      return;
    EventId src = releaseToFollow(b, t, pass_.get(c, t));
    if (src != kNone && pass_.join(c, u, src))
      grew = again = true;
  };
  while (again) {
    again = false;
    for (uint32_t bi : open_[u]) {
      const LockSection &b = sections[bi];
      const auto &ts = facts_.lockThreads[b.lock];
      if (ts.size() <= facts_.fewLockThreads) {
        for (ThreadId t : ts)
          check(b, t);
        continue;
      }
      // Which release a thread t needs depends on c's entry of t alone,
      // and a closed clock (the rule had nothing to add) needs none: only
      // threads whose entries differ from it can, visited in the same
      // order as above (thread churn: 40,000 threads take the lock, a
      // new one knows all the ended ones and needs nothing from them).
      Clock closed = closed_[2 * size_t{b.lock} + b.readMode];
      for (ThreadId t = pass_.firstDifference(closed, c, 0); t != kNone;
           t = pass_.firstDifference(closed, c, t + 1))
        if (std::binary_search(ts.begin(), ts.end(), t))
          check(b, t);
    }
  }
  for (uint32_t bi : open_[u])
    closed_[2 * size_t{sections[bi].lock} + sections[bi].readMode] = c;
  return grew;
}

bool DerivedRules::tokens(EventId w, Clock &c) {
  const trace::Trace &t = idx_.trace();
  const Event &we = t.events[w];
  ThreadId u = we.thread;
  uint32_t pw = idx_.posInThread(w);
  int64_t need = 1 + mustPrecede(facts_.semWaits[we.obj], u, pw, c) -
                 idx_.semInitialCount(we.obj);
  std::vector<EventId> sources;
  if (need <= 0 || !mayPrecede(facts_.semSources[we.obj], u, pw, sources))
    return false;
  std::vector<int64_t> weight;
  for (EventId p : sources) {
    const Event &s = t.events[p];
    weight.push_back(
        s.kind == EventKind::SemInit ? std::max<int64_t>(s.value, 0) : 1);
  }
  return joinKthSmallest(sources, weight, need, u, c);
}

int64_t DerivedRules::mustPrecede(const std::vector<EventId> &events,
                                  ThreadId self, uint32_t pos,
                                  Clock clock) const {
  int64_t n = 0;
  forEachThreadRun(idx_.trace(), {events.data(), events.data() + events.size()},
                   [&](ThreadId x, const EventId *lo, const EventId *hi) {
                     n += firstFrom(idx_, lo, hi,
                                    x == self ? pos : pass_.get(clock, x)) -
                          lo;
                   });
  return n;
}

bool DerivedRules::mayPrecede(const std::vector<EventId> &events, ThreadId self,
                              uint32_t pos, std::vector<EventId> &out) const {
  out.clear();
  bool tooMany = false;
  forEachThreadRun(idx_.trace(), {events.data(), events.data() + events.size()},
                   [&](ThreadId x, const EventId *lo, const EventId *hi) {
                     for (const EventId *p = lo; p != hi && !tooMany; ++p) {
                       if (x == self ? idx_.posInThread(*p) >= pos
                                     : pass_.entryOf(*p, self) > pos)
                         break; // after it, as are the rest of x's
                       out.push_back(*p);
                       tooMany = out.size() > kMaxSources;
                     }
                   });
  return !tooMany;
}

bool DerivedRules::joinKthSmallest(const std::vector<EventId> &sources,
                                   const std::vector<int64_t> &weight,
                                   int64_t k, ThreadId self, Clock &c) {
  int64_t total = 0;
  for (int64_t w : weight)
    total += w;
  if (k <= 0 || total < k)
    return false; // nothing needed, or never enough: nothing derived
  // (thread, entry, weight) of every non-zero entry of the sources'
  // clocks; a source without an entry for a thread has 0 there.
  std::vector<std::tuple<ThreadId, uint32_t, int64_t>> col;
  for (size_t i = 0; i < sources.size(); ++i) {
    pass_.entriesOf(sources[i], entries_);
    for (auto [x, e] : entries_)
      if (x != self)
        col.emplace_back(x, e, weight[i]);
  }
  std::sort(col.begin(), col.end());
  ClockEntries derived;
  for (size_t i = 0; i < col.size();) {
    ThreadId x = std::get<0>(col[i]);
    size_t end = i;
    int64_t present = 0;
    for (; end < col.size() && std::get<0>(col[end]) == x; ++end)
      present += std::get<2>(col[end]);
    // The zero entries come first.
    int64_t sum = total - present;
    for (; sum < k && i < end; ++i)
      if ((sum += std::get<2>(col[i])) >= k)
        derived.emplace_back(x, std::get<1>(col[i]));
    i = end;
  }
  return pass_.joinEntries(c, self, derived);
}

} // namespace racepredict::analysis
