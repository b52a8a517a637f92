//===- analysis/candidate_groups.cpp - Candidates per source-location pair ===//
#include "racepredict/analysis/candidate_groups.h"

#include "latest_by_signature.h"

#include <algorithm>
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
/// compatibility of two ids.
class Locksets {
public:
  explicit Locksets(const TraceIndex &idx) : idx_(idx) {
    ids_[{}] = 0;
    sets_.emplace_back();
  }
  uint32_t of(EventId e) {
    std::vector<std::pair<SymId, bool>> ls;
    for (uint32_t s : idx_.sectionsHolding(e))
      ls.emplace_back(idx_.sections()[s].lock, idx_.sections()[s].readMode);
    std::sort(ls.begin(), ls.end());
    auto [it, fresh] = ids_.emplace(ls, static_cast<uint32_t>(sets_.size()));
    if (fresh)
      sets_.push_back(ls);
    return it->second;
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
  const TraceIndex &idx_;
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
  size_t nt = idx.numThreads();
  GroupedCandidates out;
  Locksets locksets(idx);
  std::vector<Candidate> kept;
  // Phase-1 pairs per group key within the current location (a group's
  // first pairs overall are among its first pairs per location).
  std::map<std::pair<uint64_t, uint64_t>, size_t> perLoc;
  std::map<std::pair<uint64_t, uint64_t>, bool> truncatedKeys;
  std::vector<Bucket> buckets;
  std::vector<uint64_t> count(4 * nt), total(4);
  size_t nLoc = t.table(trace::NameSpace::Location).size();
  for (SymId x = 0; x < nLoc; ++x) {
    EventSpan acc = idx.accessesTo(x);
    if (acc.size() < 2)
      continue;
    buckets.clear();
    perLoc.clear();
    std::fill(count.begin(), count.end(), 0);
    std::fill(total.begin(), total.end(), 0);
    uint32_t gen = 0;
    for (EventId e2 : acc) {
      uint32_t g2 = idx.allocGeneration(e2);
      if (g2 != gen) { // memory reused: nothing before conflicts
        gen = g2;
        buckets.clear();
        std::fill(count.begin(), count.end(), 0);
        std::fill(total.begin(), total.end(), 0);
      }
      const Event &ev = events[e2];
      Kind k2 = kindOf(ev.kind);
      ThreadId t2 = ev.thread;
      for (int k = 0; k < 4; ++k)
        if (kindsConflict(static_cast<Kind>(k), k2))
          out.stats.conflicting += total[k] - count[k * nt + t2];
      ++total[k2];
      ++count[k2 * nt + t2];
      uint64_t s2 = signatureKey(t, e2);
      uint32_t ls2 = locksets.of(e2);
      Bucket *own = nullptr;
      for (Bucket &b : buckets) {
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
          auto key = groupKey(it->sig, s2);
          size_t &n = perLoc[key];
          if (++n > opts.keepPerGroup) {
            truncatedKeys[key] = true;
            continue;
          }
          kept.push_back({e1, e2, 0});
        }
      }
      if (!own) {
        buckets.push_back({t2, ls2, k2, {}});
        own = &buckets.back();
      }
      own->latest.update(s2, e2);
    }
  }
  std::sort(kept.begin(), kept.end(),
            [](const Candidate &a, const Candidate &b) {
              return std::make_pair(a.second, a.first) <
                     std::make_pair(b.second, b.first);
            });
  std::map<std::pair<uint64_t, uint64_t>, uint32_t> groupOf;
  std::vector<size_t> perGroup;
  for (Candidate &c : kept) {
    auto key = groupKey(signatureKey(t, c.first), signatureKey(t, c.second));
    auto [it, fresh] =
        groupOf.emplace(key, static_cast<uint32_t>(out.groups.size()));
    if (fresh) {
      out.groups.push_back(
          {key.first, key.second, truncatedKeys.count(key) > 0});
      perGroup.push_back(0);
    }
    c.group = it->second;
    if (++perGroup[c.group] > opts.keepPerGroup) {
      out.groups[c.group].truncated = true;
      continue;
    }
    out.pairs.push_back(c);
  }
  return out;
}

SignatureIndex::SignatureIndex(const TraceIndex &idx) : idx_(idx) {
  const trace::Trace &t = idx.trace();
  size_t nSrc = t.sources.size();
  bySource_.off.assign(nSrc + 1, 0);
  for (const Event &e : t.events)
    if (trace::isAccess(e.kind) && e.src && e.src < nSrc)
      ++bySource_.off[e.src + 1];
  for (size_t k = 1; k <= nSrc; ++k)
    bySource_.off[k] += bySource_.off[k - 1];
  bySource_.items.resize(bySource_.off.back());
  std::vector<uint32_t> next(bySource_.off.begin(), bySource_.off.end() - 1);
  for (EventId i = 0; i < t.events.size(); ++i) {
    const Event &e = t.events[i];
    if (trace::isAccess(e.kind) && e.src && e.src < nSrc)
      bySource_.items[next[e.src]++] = i;
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
}

bool GroupPairs::next(EventId *first, EventId *second) {
  const trace::Trace &t = idx_.trace();
  for (; i_ < seconds_.size(); ++i_, started_ = false) {
    EventId e2 = seconds_[i_];
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
  return false;
}

} // namespace racepredict::analysis
