//===- analysis/candidate_groups.cpp - Candidates per source-location pair ===//
#include "racepredict/analysis/candidate_groups.h"

#include "latest_by_signature.h"

#include "racepredict/analysis/memory_objects.h"

#include <algorithm>
#include <array>
#include <map>

namespace racepredict::analysis {

using trace::Event;
using trace::EventKind;

uint64_t signatureKey(const trace::Trace &t, EventId e) {
  // Source id in the high half; events without a source are unique.
  trace::SrcId src = t.events[e].src;
  return src ? (uint64_t{1} << 63) | src : e;
}

namespace {

/// Access kinds for the conflict rule: plain read, plain write, atomic
/// read, atomic write (an rmw writes).
enum Kind : uint8_t { PR, PW, AR, AW };

Kind kindOf(EventKind k) {
  switch (k) {
  case EventKind::Read:
    return PR;
  case EventKind::Write:
  case EventKind::Free: // writes the object it ends
    return PW;
  case EventKind::AtomicRead:
    return AR;
  default:
    return AW;
  }
}

bool kindsConflict(Kind x, Kind y) {
  bool writes = x == PW || x == AW || y == PW || y == AW;
  bool bothAtomic = (x == AR || x == AW) && (y == AR || y == AW);
  return writes && !bothAtomic;
}

/// Locksets (lock, read mode) interned to small ids, with a cache of the
/// compatibility of two ids. The lockset of every event comes from one
/// pass per thread that records where it changes, so an access's lockset is
/// a binary search. A changed set is sorted and interned at the first event
/// after the change that is no lock operation, not at every acquire: one
/// thread nesting 50,000 locks (issue 21 item 7) would otherwise intern
/// 50,000 sets of average size 25,000 (quadratic time, gigabytes).
class Locksets {
public:
  explicit Locksets(const TraceIndex &idx)
      : idx_(idx), changes_(idx.numThreads()) {
    ids_[{}] = 0;
    sets_.emplace_back();
    const auto &events = idx.trace().events;
    std::vector<std::pair<SymId, bool>> held, sorted;
    for (ThreadId t = 0; t < idx.numThreads(); ++t) {
      held.clear();
      bool changed = false;
      const auto &te = idx.threadEvents(t);
      for (uint32_t p = 0; p < te.size(); ++p) {
        const Event &e = events[te[p]];
        auto release = [&](SymId lock) {
          for (auto it = held.rbegin(); it != held.rend(); ++it)
            if (it->first == lock) {
              held.erase(std::next(it).base());
              return;
            }
        };
        switch (e.kind) {
        case EventKind::Acquire:
        case EventKind::RAcquire:
          held.push_back({e.obj, e.kind == EventKind::RAcquire});
          changed = true;
          continue;
        case EventKind::Release:
          release(e.obj);
          changed = true;
          continue;
        case EventKind::Wait: // releases its lock, then re-acquires it
          release(e.aux);
          held.push_back({e.aux, false});
          changed = true;
          continue;
        default:
          break;
        }
        if (!changed)
          continue;
        changed = false;
        sorted = held;
        std::sort(sorted.begin(), sorted.end());
        sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
        // Events from position p on hold this set.
        changes_[t].push_back({p, intern(sorted)});
      }
    }
  }
  /// The lockset of access e (the sections holding it, docs/semantics.md).
  uint32_t of(EventId e) const {
    const auto &ch = changes_[idx_.trace().events[e].thread];
    uint32_t p = idx_.posInThread(e);
    auto it = std::upper_bound(
        ch.begin(), ch.end(), p,
        [](uint32_t v, const std::pair<uint32_t, uint32_t> &c) {
          return v < c.first;
        });
    return it == ch.begin() ? 0 : it[-1].second;
  }
  /// No common lock held by both, unless both hold it in read mode.
  bool compatible(uint32_t x, uint32_t y) {
    if (x == 0 || y == 0)
      return true;
    uint64_t key = (uint64_t{std::min(x, y)} << 32) | std::max(x, y);
    auto it = cache_.find(key);
    if (it != cache_.end())
      return it->second;
    bool ok = true;
    for (auto &[l1, r1] : sets_[x])
      for (auto &[l2, r2] : sets_[y])
        if (l1 == l2 && !(r1 && r2))
          ok = false;
    cache_.emplace(key, ok);
    return ok;
  }

private:
  uint32_t intern(const std::vector<std::pair<SymId, bool>> &ls) {
    auto [it, fresh] = ids_.emplace(ls, static_cast<uint32_t>(sets_.size()));
    if (fresh)
      sets_.push_back(ls);
    return it->second;
  }

  const TraceIndex &idx_;
  /// Per thread: (first position, lockset id) where the lockset changes.
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> changes_;
  std::map<std::vector<std::pair<SymId, bool>>, uint32_t> ids_;
  std::vector<std::vector<std::pair<SymId, bool>>> sets_;
  std::unordered_map<uint64_t, bool> cache_;
};

/// The unordered pair (by value: std::minmax would return references).
std::pair<uint64_t, uint64_t> groupKey(uint64_t x, uint64_t y) {
  return x < y ? std::make_pair(x, y) : std::make_pair(y, x);
}

/// The accesses of one thread with one lockset and kind at the current
/// location, latest per signature. A conflicting access skips a whole
/// bucket whose lockset it shares.
struct Bucket {
  ThreadId thread;
  uint32_t lockset;
  Kind kind;
  LatestBySignature latest;
};

} // namespace

bool holdCommonLock(const TraceIndex &idx, EventId a, EventId b) {
  for (uint32_t sa : idx.sectionsHolding(a))
    for (uint32_t sb : idx.sectionsHolding(b)) {
      const LockSection &x = idx.sections()[sa], &y = idx.sections()[sb];
      if (x.lock == y.lock && !(x.readMode && y.readMode))
        return true;
    }
  return false;
}

GroupedCandidates findCandidateGroups(const TraceIndex &idx,
                                      const MustHappenBefore &mhb,
                                      const CandidateOptions &opts) {
  const trace::Trace &t = idx.trace();
  const auto &events = t.events;
  GroupedCandidates out;
  Locksets locksets(idx);
  std::vector<Candidate> kept;
  struct KeyHash {
    size_t operator()(const std::pair<uint64_t, uint64_t> &k) const {
      return static_cast<size_t>(k.first * 0x9e3779b97f4a7c15ull ^ k.second);
    }
  };
  // Pairs produced so far per group: the first keepPerGroup are kept.
  std::unordered_map<std::pair<uint64_t, uint64_t>, size_t, KeyHash> produced;
  // One pass in trace order (the events are read sequentially; per
  // location: the allocation generation, its buckets, conflict counters).
  struct LocState {
    uint32_t gen = 0;
    std::vector<Bucket> buckets;
    /// Accesses so far per (thread, kind), and per kind.
    std::vector<std::pair<ThreadId, std::array<uint64_t, 4>>> perThread;
    std::array<uint64_t, 4> total{};
  };
  // A state per location touched, found through a slot per name: the
  // reduced trace of pigz + zlib keeps all 3.6M names of the whole trace
  // and touches ~160K of them, and a state per name took 314 MB.
  std::vector<uint32_t> slotOf(t.table(trace::NameSpace::Location).size(),
                               kNone);
  std::vector<LocState> locs;
  // e2 touches location `loc` (an access of it, or a free ending it).
  auto visit = [&](EventId e2, SymId loc) {
    const Event &ev = events[e2];
    uint32_t &slot = slotOf[loc];
    if (slot == kNone) {
      slot = static_cast<uint32_t>(locs.size());
      locs.emplace_back();
    }
    LocState &L = locs[slot];
    uint32_t g2 = idx.objects().generation(loc, e2);
    if (g2 != L.gen) { // memory reused: nothing before conflicts
      L = LocState{};
      L.gen = g2;
    }
    Kind k2 = kindOf(ev.kind);
    ThreadId t2 = ev.thread;
    std::array<uint64_t, 4> *mine = nullptr;
    for (auto &[th, c] : L.perThread)
      if (th == t2)
        mine = &c;
    if (!mine) {
      L.perThread.push_back({t2, {}});
      mine = &L.perThread.back().second;
    }
    for (int k = 0; k < 4; ++k)
      if (kindsConflict(static_cast<Kind>(k), k2))
        out.stats.conflicting += L.total[k] - (*mine)[k];
    ++L.total[k2];
    ++(*mine)[k2];
    uint64_t s2 = signatureKey(t, e2);
    uint32_t ls2 = locksets.of(e2);
    Bucket *own = nullptr;
    for (Bucket &b : L.buckets) {
      if (b.thread == t2 && b.lockset == ls2 && b.kind == k2)
        own = &b;
      if (b.thread == t2 || !kindsConflict(b.kind, k2))
        continue;
      if (opts.filters && !locksets.compatible(b.lockset, ls2)) {
        out.stats.filteredLockset += b.latest.live();
        continue;
      }
      // Entries of b's thread that must happen before e2: a prefix.
      uint32_t cut = opts.filters ? mhb.entry(e2, b.thread) : 0;
      const LatestBySignature::Entry *first = b.latest.from(idx, cut);
      out.stats.filteredMhb += static_cast<size_t>(first - b.latest.begin());
      for (auto it = first; it != b.latest.end(); ++it) {
        if (it->stale)
          continue;
        EventId e1 = it->latest;
        if (opts.window && e1 / opts.window != e2 / opts.window)
          continue;
        if (ev.kind == EventKind::Free && events[e1].kind == EventKind::Free)
          continue; // two frees of one object: no access to race with
        auto key = groupKey(it->sig, s2);
        if (++produced[key] > opts.keepPerGroup)
          continue;
        kept.push_back({e1, e2, 0});
      }
    }
    if (!own) {
      L.buckets.push_back({t2, ls2, k2, {}});
      own = &L.buckets.back();
    }
    own->latest.update(s2, e2);
  };
  for (EventId e2 = 0; e2 < events.size(); ++e2) {
    const Event &ev = events[e2];
    if (trace::isAccess(ev.kind))
      visit(e2, ev.obj);
    else if (ev.kind == EventKind::Free)
      for (SymId loc : idx.objects().freedBy(e2))
        visit(e2, loc);
  }
  std::sort(kept.begin(), kept.end(),
            [](const Candidate &a, const Candidate &b) {
              return std::make_pair(a.second, a.first) <
                     std::make_pair(b.second, b.first);
            });
  std::map<std::pair<uint64_t, uint64_t>, uint32_t> groupOf;
  for (Candidate &c : kept) {
    auto key = groupKey(signatureKey(t, c.first), signatureKey(t, c.second));
    auto [it, fresh] =
        groupOf.emplace(key, static_cast<uint32_t>(out.groups.size()));
    if (fresh)
      out.groups.push_back(
          {key.first, key.second, produced[key] > opts.keepPerGroup});
    c.group = it->second;
    out.pairs.push_back(c);
  }
  return out;
}

SignatureIndex::SignatureIndex(const TraceIndex &idx) : idx_(idx) {
  const trace::Trace &t = idx.trace();
  size_t nSrc = t.sources.size();
  bySource_.off.assign(nSrc + 1, 0);
  auto touches = [&](const Event &e) {
    return (trace::isAccess(e.kind) || e.kind == EventKind::Free) && e.src &&
           e.src < nSrc;
  };
  for (const Event &e : t.events)
    if (touches(e))
      ++bySource_.off[e.src + 1];
  for (size_t k = 1; k <= nSrc; ++k)
    bySource_.off[k] += bySource_.off[k - 1];
  bySource_.items.resize(bySource_.off.back());
  std::vector<uint32_t> next(bySource_.off.begin(), bySource_.off.end() - 1);
  for (EventId i = 0; i < t.events.size(); ++i) {
    if (touches(t.events[i]))
      bySource_.items[next[t.events[i].src]++] = i;
  }
}

std::vector<EventId> SignatureIndex::accesses(uint64_t sig) const {
  if (!(sig >> 63))
    return {static_cast<EventId>(sig)};
  return bySource_.of(static_cast<size_t>(sig & ~(uint64_t{1} << 63))).vec();
}

GroupPairs::GroupPairs(const TraceIndex &idx, const MustHappenBefore &mhb,
                       const SignatureIndex &sigs, const CandidateOptions &opts,
                       const CandidateGroup &g)
    : idx_(idx), mhb_(mhb), opts_(opts), g_(g) {
  seconds_ = sigs.accesses(g.sigA);
  if (g.sigB != g.sigA) {
    std::vector<EventId> b = sigs.accesses(g.sigB), merged;
    std::merge(seconds_.begin(), seconds_.end(), b.begin(), b.end(),
               std::back_inserter(merged));
    seconds_.swap(merged);
  }
  // A free touches every location of its object: its pairs, few, are
  // listed up front rather than scanned lazily.
  const trace::Trace &t = idx.trace();
  for (EventId f : seconds_) {
    if (t.events[f].kind != EventKind::Free)
      continue;
    uint64_t want = signatureKey(t, f) == g.sigA ? g.sigB : g.sigA;
    for (SymId loc : idx.objects().freedBy(f))
      for (EventId x : idx.accessesTo(loc)) {
        EventId a = std::min(f, x), b = std::max(f, x);
        if (signatureKey(t, x) != want || !conflicts(idx, f, x) ||
            (opts.window && a / opts.window != b / opts.window) ||
            (opts.filters &&
             (mhb.orderedEitherWay(a, b) || holdCommonLock(idx, a, b))))
          continue;
        freePairs_.push_back({a, b});
      }
  }
  std::sort(freePairs_.begin(), freePairs_.end(),
            [](const auto &x, const auto &y) {
              return std::make_pair(x.second, x.first) <
                     std::make_pair(y.second, y.first);
            });
}

bool GroupPairs::next(EventId *first, EventId *second) {
  const trace::Trace &t = idx_.trace();
  for (; i_ < seconds_.size(); ++i_, started_ = false) {
    EventId e2 = seconds_[i_];
    if (t.events[e2].kind == EventKind::Free)
      continue; // in freePairs_
    uint64_t s2 = signatureKey(t, e2);
    uint64_t want = s2 == g_.sigA ? g_.sigB : g_.sigA;
    EventSpan acc = idx_.accessesTo(t.events[e2].obj);
    if (!started_) {
      k_ = static_cast<size_t>(std::lower_bound(acc.begin(), acc.end(), e2) -
                               acc.begin());
      started_ = true;
    }
    while (k_ > 0) {
      EventId e1 = acc[--k_];
      if (opts_.window && e1 / opts_.window != e2 / opts_.window)
        break;
      if (signatureKey(t, e1) != want || !conflicts(idx_, e1, e2))
        continue;
      if (opts_.filters &&
          (mhb_.ordered(e1, e2) || holdCommonLock(idx_, e1, e2)))
        continue;
      *first = e1;
      *second = e2;
      return true;
    }
  }
  if (j_ >= freePairs_.size())
    return false;
  *first = freePairs_[j_].first;
  *second = freePairs_[j_].second;
  ++j_;
  return true;
}

} // namespace racepredict::analysis
