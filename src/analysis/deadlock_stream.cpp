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
// demand).
//
#include "deadlock_search.h"

#include <algorithm>
#include <array>
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
  CandidateStreamState(const TraceIndex &idx, const MustHappenBefore &mhb,
                       const DeadlockCandidateOptions &o,
                       DeadlockCandidateStats *st)
      : opts(o), stats(st), search(idx, mhb, opts, st) {
    sets = searchOwnershipSets(search);
    stats->ownershipSets = sets.sets.size();
    searchHangs(search);
    hangs = search.take();
    std::sort(hangs.begin(), hangs.end(),
              [](const DeadlockCandidate &a, const DeadlockCandidate &b) {
                return a.members < b.members;
              });
    // A set enters its group's heap by its bound (firstInstanceBound): its
    // cursor is built, and its first instance searched, only when the
    // bound comes first of all — never for a set whose group was skipped
    // before (a churn by several creators has ~10^6 sets, ~10^2 groups).
    size_t n = sets.sets.size();
    cursors.resize(n);
    members.resize(n);
    std::map<GroupKey, size_t> slotOf;
    for (size_t i = 0; i < n; ++i) {
      members[i] = firstInstanceBound(sets.sets[i]);
      // The bound's members have its instances' operations and lines.
      auto [it, fresh] = slotOf.emplace(
          groupKey(idx.trace(), members[i], opts.defaultReport), slots.size());
      if (fresh)
        slots.push_back({it->first, {}});
      slots[it->second].heap.push_back(i);
    }
    for (size_t g = 0; g < slots.size(); ++g) {
      std::make_heap(slots[g].heap.begin(), slots[g].heap.end(), later());
      top.push_back(g);
    }
    std::make_heap(top.begin(), top.end(), laterSlot());
  }

  /// Heap order: the set whose current candidate (or bound) comes first
  /// on top.
  struct Later {
    const CandidateStreamState *st;
    bool operator()(size_t a, size_t b) const {
      ++st->stats->orderComparisons;
      return compareMembers(st->search, st->membersOf(b), st->sets.sets[b],
                            st->membersOf(a), st->sets.sets[a]) < 0;
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
    while (!top.empty() && !stats->truncated) {
      Slot &slot = slots[top.front()];
      size_t i = slot.heap.front();
      if (cursors[i] && !skippedGroup(slot.key))
        return true;
      std::pop_heap(top.begin(), top.end(), laterSlot());
      if (skippedGroup(slot.key)) { // their instances share its group
        top.pop_back();
        slot.heap = {};
        continue;
      }
      std::pop_heap(slot.heap.begin(), slot.heap.end(), later());
      slot.heap.pop_back();
      cursors[i] = std::make_unique<InstanceCursor>(search, sets.sets[i]);
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
    while (!stats->truncated) {
      bool haveSet = settleFirst(), haveHang = nextHang < hangs.size();
      if (stats->truncated || (!haveSet && !haveHang))
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
        stats->truncated = true;
      return true;
    }
    return false;
  }

  DeadlockCandidateOptions opts;
  DeadlockCandidateStats *stats;
  DeadlockSearch search;
  OwnershipSets sets;
  /// Per set: its cursor once built (null before, and once exhausted),
  /// and its bound until then.
  std::vector<std::unique_ptr<InstanceCursor>> cursors;
  std::vector<std::vector<DeadlockMember>> members;
  /// The sets with an instance left (or not yet searched), by group: a
  /// heap of sets per group and a heap of the groups, so that a skipped
  /// group's sets go at once, not one pop of the heap of all the sets
  /// each.
  struct Slot {
    GroupKey key;
    std::vector<size_t> heap;
  };
  std::vector<Slot> slots;
  std::vector<size_t> top; ///< slots with a set, by their first
  std::vector<DeadlockCandidate> hangs;
  size_t nextHang = 0;
  std::map<GroupKey, uint32_t> groups;
  std::set<uint32_t> skipped;
  size_t produced = 0;
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
