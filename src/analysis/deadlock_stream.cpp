//===- analysis/deadlock_stream.cpp - Candidates in order, on demand ---===//
//
// Merges the ownership sets' instance cursors (deadlock_instances.cpp) and
// the hang candidates into one list sorted by members, the order the
// predictor decides them in, and groups them for the default report. The
// merge is lazy: a set's cursor is built only when its bound (each member
// at its class's first position) comes first, advances only when its
// candidate is taken, and a skipped group's sets are dropped, so the
// default report of a loop over the same locks decides the first feasible
// instance of each group and never builds the others (Dirk and SPDOffline
// likewise check abstract lock-graph cycles first and concrete instances on
// demand). For the same reason the default report keeps only a group's
// first few ownership sets: thread churn by several creators has 10^6 sets
// (every one a real deadlock: supersets of one lock cycle with threads
// waiting behind it, combined across creators) in ~10^2 groups, and kept
// them all in gigabytes; a group taken past them makes the search run again.
//
#include "deadlock_search.h"

#include <algorithm>
#include <array>
#include <list>
#include <memory>
#include <set>

namespace racepredict::analysis {
namespace detail {

namespace {

using GroupKey = std::vector<std::array<uint64_t, 3>>;

// Group by the members' source locations, as races are grouped by their
// pair of locations. An event without one (a hand-written trace) stands
// for its "instruction" — thread, operation and object — so that a loop
// over the same locks still makes one group, not one per iteration:
// deadlock candidates combine positions, and per-event groups would make
// the default report as exponential as --all-pairs. The default report's
// candidates hold every thread their members leave uncreated
// (DeadlockCandidateOptions::defaultReport); those threads block at no line
// of their own and do not make a group of their own either.
GroupKey groupKey(const trace::Trace &t,
                  const std::vector<DeadlockMember> &members,
                  bool defaultReport) {
  GroupKey key;
  for (const auto &m : members) {
    if (defaultReport && m.unforked)
      continue;
    const trace::Event &ev = t.events[m.event];
    if (ev.src)
      key.push_back({1, ev.src, m.unforked});
    else
      key.push_back(
          {0, uint64_t{ev.thread} << 8 | uint8_t(ev.kind),
           uint64_t{ev.obj} << 33 | uint64_t{ev.aux} << 1 | m.unforked});
  }
  std::sort(key.begin(), key.end());
  return key;
}

} // namespace

struct CandidateStreamState {
  /// The sets with an instance left (or not yet searched), by group: a
  /// heap of sets per group and a heap of the groups, so that a skipped
  /// group's sets go at once, not one pop of the heap of all the sets
  /// each.
  static constexpr size_t kNoSet = ~size_t{0};
  struct Slot {
    GroupKey key;
    std::vector<size_t> heap;
    /// The last set kept of a group that has more: when it is taken,
    /// the search runs again for those after it.
    size_t sentinel;
    size_t kept; ///< `perGroup` of the last search that kept its sets
  };
  CandidateStreamState(const TraceIndex &idx, const MustHappenBefore &mhb,
                       const DeadlockCandidateOptions &o,
                       DeadlockCandidateStats *st)
      : opts(o), stats(st), search(idx, mhb, opts, st) {
    // --all-pairs decides every set: it keeps them all.
    keep(false, opts.defaultReport ? opts.setsPerGroup : 0);
    // A search stopped at its budget stays reported as truncated, but the
    // default report still decides the sets it found: one group's first
    // feasible set each, a few solver calls, and every finding a checked
    // deadlock. --all-pairs would decide every set found (up to 10^5
    // solver calls) and keeps deciding none, as before.
    if (stats->truncated && opts.defaultReport)
      search.resumeAfterBudget();
    searchHangs(search);
    hangs = search.take();
    std::sort(hangs.begin(), hangs.end(),
              [](const DeadlockCandidate &a, const DeadlockCandidate &b) {
                return a.members < b.members;
              });
    for (size_t g = 0; g < slots.size(); ++g)
      top.push_back(g);
    std::make_heap(top.begin(), top.end(), laterSlot());
  }

  /// A set found by the search: its bound and its place in the search's
  /// order, which breaks ties between equal bounds the same way in every
  /// run of the search.
  struct Found {
    OwnershipSet set;
    std::vector<DeadlockMember> bound;
    size_t leaf;
  };
  /// Found `a` comes before `b` (or set i before set j) in a group.
  bool before(const std::vector<DeadlockMember> &a, const OwnershipSet &sa,
              size_t la, const std::vector<DeadlockMember> &b,
              const OwnershipSet &sb, size_t lb) const {
    int c = compareMembers(search, a, sa, b, sb);
    return c != 0 ? c < 0 : la < lb;
  }

  /// Runs the ownership search and keeps, per group, its first `perGroup`
  /// + 1 sets by (bound, search order) (0: all); of a group with more, the
  /// last kept is its sentinel, at or before every set dropped. A set
  /// enters its group's heap by its bound (firstInstanceBound): its cursor
  /// is built, and its first instance searched, only when the bound comes
  /// first of all — never for a set whose group was skipped before. Run
  /// `again` (a sentinel was taken), the search keeps the sets after each
  /// group's sentinel, twice as many as that group's last search did: the
  /// search is deterministic, so its order and bounds are the first
  /// run's, and taking every candidate of every group costs a logarithmic
  /// number of searches.
  void keep(bool again, size_t perGroup) {
    auto worstLast = [&](const Found &a, const Found &b) {
      return before(a.bound, a.set, a.leaf, b.bound, b.set, b.leaf);
    };
    struct Pool {
      std::vector<Found> heap; ///< the worst kept on top
      size_t perGroup;
      bool dropped = false;
    };
    std::map<GroupKey, Pool> pools;
    size_t leaf = 0;
    auto sink = [&](OwnershipSet &&set) {
      size_t n = leaf++;
      if (!again)
        ++stats->ownershipSets;
      std::vector<DeadlockMember> bound = firstInstanceBound(set);
      // The bound's members have its instances' operations and lines.
      GroupKey key = groupKey(search.t, bound, opts.defaultReport);
      size_t per = perGroup;
      if (again) {
        const Slot &slot = slots[slotOf.at(key)];
        size_t x = slot.sentinel;
        if (x == kNoSet ||
            !before(members[x], sets[x], leafOf[x], bound, set, n))
          return;
        per = 2 * slot.kept;
      }
      auto [it, fresh] = pools.try_emplace(std::move(key));
      Pool &p = it->second;
      p.perGroup = per;
      p.heap.push_back({std::move(set), std::move(bound), n});
      std::push_heap(p.heap.begin(), p.heap.end(), worstLast);
      if (per && p.heap.size() > per + 1) {
        std::pop_heap(p.heap.begin(), p.heap.end(), worstLast);
        p.heap.pop_back();
        p.dropped = true;
      }
    };
    if (again)
      search.withOwnBudget(
          [&] { classes.push_back(searchOwnershipSets(search, sink)); });
    else
      classes.push_back(searchOwnershipSets(search, sink));
    for (auto &[key, p] : pools) {
      auto [it, fresh] = slotOf.emplace(key, slots.size());
      if (fresh)
        slots.push_back({key, {}, kNoSet, 0});
      Slot &slot = slots[it->second];
      slot.kept = p.perGroup;
      slot.sentinel = kNoSet;
      for (size_t k = 0; k < p.heap.size(); ++k) {
        size_t i = sets.size();
        sets.push_back(std::move(p.heap[k].set));
        members.push_back(std::move(p.heap[k].bound));
        leafOf.push_back(p.heap[k].leaf);
        cursors.emplace_back();
        if (k == 0 && p.dropped)
          slot.sentinel = i;
        slot.heap.push_back(i);
        std::push_heap(slot.heap.begin(), slot.heap.end(), later());
      }
    }
  }

  /// Heap order: the set whose current candidate (or bound) comes first
  /// on top.
  struct Later {
    const CandidateStreamState *st;
    bool operator()(size_t a, size_t b) const {
      ++st->stats->orderComparisons;
      return st->before(st->membersOf(b), st->sets[b], st->leafOf[b],
                        st->membersOf(a), st->sets[a], st->leafOf[a]);
    }
  };
  Later later() const { return {this}; }
  /// The same order on groups, by the first set of each.
  struct LaterSlot {
    const CandidateStreamState *st;
    bool operator()(size_t a, size_t b) const {
      return st->later()(st->slots[a].heap.front(), st->slots[b].heap.front());
    }
  };
  LaterSlot laterSlot() const { return {this}; }
  /// Set i's current instance's decided members, or its bound.
  const std::vector<DeadlockMember> &membersOf(size_t i) const {
    return cursors[i] ? cursors[i]->current().members : members[i];
  }
  const InstanceCursor &first() const {
    return *cursors[slots[top.front()].heap.front()];
  }

  /// The search's budget is spent, or the candidate limit reached.
  bool stopped() const { return search.stopped() || full; }

  uint32_t groupOf(const GroupKey &key) {
    return groups.emplace(key, static_cast<uint32_t>(groups.size()))
        .first->second;
  }
  bool skippedGroup(const GroupKey &key) const {
    auto it = groups.find(key);
    return it != groups.end() && skipped.count(it->second) != 0;
  }

  /// Until the first set of all has a cursor (its current candidate is
  /// then the least of all): drops a skipped group whole, builds the
  /// cursor of a set whose bound is first. False once none is left.
  bool settleFirst() {
    while (!top.empty() && !stopped()) {
      Slot &slot = slots[top.front()];
      size_t i = slot.heap.front();
      if (cursors[i] && !skippedGroup(slot.key))
        return true;
      std::pop_heap(top.begin(), top.end(), laterSlot());
      if (skippedGroup(slot.key)) { // their instances share its group
        top.pop_back();
        slot.heap = {};
        slot.sentinel = kNoSet;
        continue;
      }
      std::pop_heap(slot.heap.begin(), slot.heap.end(), later());
      slot.heap.pop_back();
      if (i == slot.sentinel) // the sets after it are needed now
        keep(true, 0);
      cursors[i] = std::make_unique<InstanceCursor>(search, sets[i]);
      members[i] = {};
      if (cursors[i]->next()) {
        slot.heap.push_back(i);
        std::push_heap(slot.heap.begin(), slot.heap.end(), later());
      } else {
        cursors[i].reset();
      }
      if (slot.heap.empty())
        top.pop_back();
      else
        std::push_heap(top.begin(), top.end(), laterSlot());
    }
    return false;
  }

  bool next(DeadlockCandidate &out) {
    while (!stopped()) {
      bool haveSet = settleFirst(), haveHang = nextHang < hangs.size();
      if (stopped() || (!haveSet && !haveHang))
        return false;
      bool fromSet = haveSet && (!haveHang ||
                                 first().compare(hangs[nextHang].members) <= 0);
      uint32_t g = fromSet ? groupOf(slots[top.front()].key)
                           : groupOf(groupKey(search.t, hangs[nextHang].members,
                                              opts.defaultReport));
      bool skip = skipped.count(g) != 0;
      if (fromSet) {
        std::pop_heap(top.begin(), top.end(), laterSlot());
        auto &heap = slots[top.back()].heap;
        std::pop_heap(heap.begin(), heap.end(), later());
        size_t i = heap.back();
        heap.pop_back();
        out = cursors[i]->candidate();
        if (cursors[i]->next()) {
          heap.push_back(i);
          std::push_heap(heap.begin(), heap.end(), later());
        } else {
          cursors[i].reset();
        }
        if (heap.empty())
          top.pop_back();
        else
          std::push_heap(top.begin(), top.end(), laterSlot());
        if (nextHang < hangs.size() && hangs[nextHang].members == out.members)
          out.hang = true, ++nextHang;
      } else {
        ++nextHang;
        if (skip)
          continue;
        out = hangs[nextHang - 1];
      }
      out.group = g;
      (out.ownership ? stats->ownership : stats->hangs) += 1;
      stats->lockCycles += out.locksOnly;
      if (opts.maxCandidates && ++produced >= opts.maxCandidates)
        stats->truncated = full = true;
      return true;
    }
    return false;
  }

  DeadlockCandidateOptions opts;
  DeadlockCandidateStats *stats;
  DeadlockSearch search;
  /// The sets kept (stable: cursors point to them) and the classes of
  /// each run of the search.
  std::deque<OwnershipSet> sets;
  std::list<std::deque<std::vector<Position>>> classes;
  /// Per set: its cursor once built (null before, and once exhausted),
  /// its bound until then, and its place in the search's order.
  std::vector<std::unique_ptr<InstanceCursor>> cursors;
  std::vector<std::vector<DeadlockMember>> members;
  std::vector<size_t> leafOf;
  std::vector<Slot> slots;
  std::map<GroupKey, size_t> slotOf;
  std::vector<size_t> top; ///< slots with a set, by their first
  std::vector<DeadlockCandidate> hangs;
  size_t nextHang = 0;
  std::map<GroupKey, uint32_t> groups;
  std::set<uint32_t> skipped;
  size_t produced = 0;
  bool full = false; ///< opts.maxCandidates taken
};

} // namespace detail

DeadlockCandidateStream::DeadlockCandidateStream(
    const TraceIndex &idx, const MustHappenBefore &mhb,
    const DeadlockCandidateOptions &opts, DeadlockCandidateStats *stats)
    : st_(std::make_unique<detail::CandidateStreamState>(idx, mhb, opts,
                                                         stats)) {}

DeadlockCandidateStream::~DeadlockCandidateStream() = default;

bool DeadlockCandidateStream::next(DeadlockCandidate &out) {
  return st_->next(out);
}

void DeadlockCandidateStream::skipGroup(uint32_t group) {
  st_->skipped.insert(group);
}

std::vector<DeadlockCandidate>
findDeadlockCandidates(const TraceIndex &idx, const MustHappenBefore &mhb,
                       const DeadlockCandidateOptions &opts,
                       DeadlockCandidateStats *stats) {
  DeadlockCandidateStream stream(idx, mhb, opts, stats);
  std::vector<DeadlockCandidate> out;
  DeadlockCandidate c;
  while (stream.next(c))
    out.push_back(c);
  return out;
}

} // namespace racepredict::analysis
