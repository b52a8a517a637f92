//===- analysis/local_reduction.cpp - Drop what only one thread touches ---===//
//
// Three steps over the trace (docs/slicing.md, "Thread-local locations"):
//  1. which thread touches each location (a free touches every location of
//     its block, since it races with other threads' uses);
//  2. in trace order, the reads and writes of a location one thread alone
//     touches are dropped; what a dropped read stands for in a dependence
//     list is the set of kept reads its value came from (its writer's list,
//     rewritten the same way); when that set cannot be listed (a writer
//     under the plain rule) nothing, if a plain branch comes between the
//     writer and the list's event, else one read of that write, kept with
//     its writer;
//  3. a run of branches with no kept event of their thread between them is
//     said by its last one (made plain when one of them is, else listing
//     every read the run lists).
//
#include "racepredict/analysis/local_reduction.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <utility>

namespace racepredict::analysis {

using trace::Event;
using trace::EventKind;
using trace::NameSpace;
using trace::Trace;

namespace {

constexpr uint32_t kUntouched = kNone;
constexpr uint32_t kShared = kNone - 1;
/// Per location: the only thread that touches it, kShared or kUntouched.
std::vector<uint32_t> locationOwners(const Trace &t) {
  std::vector<uint32_t> owner(t.table(NameSpace::Location).size(), kUntouched);
  auto touch = [&](SymId l, ThreadId th) {
    uint32_t &o = owner[l];
    o = o == kUntouched || o == th ? th : kShared;
  };
  bool frees = false;
  for (const Event &e : t.events) {
    if (trace::isAccess(e.kind)) {
      // Atomics order like synchronisation objects: never dropped.
      if (trace::isAtomic(e.kind))
        owner[e.obj] = kShared;
      else
        touch(e.obj, e.thread);
    }
    frees = frees || e.kind == EventKind::Free;
  }
  if (!frees)
    return owner;
  // A free writes its whole block (docs/semantics.md, Objects): it races
  // with other threads' accesses of every location at an address in
  // [a, a + size), so it touches them. (An alloc conflicts with nothing and
  // writes no value: another thread's alloc leaves a location local.)
  const trace::SymbolTable &names = t.table(NameSpace::Location);
  std::vector<std::pair<uint64_t, SymId>> byAddr;
  for (SymId l = 0; l < names.size(); ++l)
    if (owner[l] != kUntouched && owner[l] != kShared)
      if (auto a = trace::locationAddress(names.name(l)))
        byAddr.push_back({*a, l});
  std::sort(byAddr.begin(), byAddr.end());
  for (const Event &e : t.events) {
    if (e.kind != EventKind::Free)
      continue;
    touch(e.obj, e.thread);
    auto a = trace::locationAddress(names.name(e.obj));
    if (!a)
      continue;
    auto it = std::lower_bound(byAddr.begin(), byAddr.end(),
                               std::make_pair(*a, SymId{0}));
    for (; it != byAddr.end() && it->first - *a < e.aux; ++it)
      touch(it->second, e.thread);
  }
  return owner;
}

/// The tables events refer to by id (names, sources, initial values, rmw
/// values, custom arguments, call-stack nodes, the stop), copied or moved
/// from `from` as it is passed.
template <class From> void takeTables(Trace &to, From &&from) {
  to.names = std::forward<From>(from).names;
  to.sources = std::forward<From>(from).sources;
  to.initValues = std::forward<From>(from).initValues;
  to.rmwOld = std::forward<From>(from).rmwOld;
  to.argOffsets = std::forward<From>(from).argOffsets;
  to.argItems = std::forward<From>(from).argItems;
  to.stackNodes = std::forward<From>(from).stackNodes;
  to.stop = std::forward<From>(from).stop;
}

/// Step 2's state: what each dropped read and each local location's
/// current value stand for, as sets of kept reads.
class Reducer {
public:
  Reducer(const Trace &t, size_t maxListed, const std::vector<bool> *shared)
      : t_(t), maxListed_(maxListed), owner_(locationOwners(t)),
        keep_(t.events.size(), true), referenced_(t.events.size(), false),
        loc_(owner_.size()), plainBranches_(t.numThreads()),
        sharedReads_(t.numThreads()) {
    size_t referenced = 0;
    for (SymId l = 0; shared && l < shared->size() && l < owner_.size(); ++l)
      if ((*shared)[l])
        owner_[l] = kShared;
    for (EventId i = 0; i < t.events.size(); ++i) {
      const Event &e = t.events[i];
      if (t.hasDeps(e)) {
        auto [b, en] = t.deps(e);
        for (; b != en; ++b)
          if (!referenced_[*b]) {
            referenced_[*b] = true;
            ++referenced;
          }
      } else if (e.kind == EventKind::Branch) {
        plainBranches_[e.thread].push_back(i);
      }
    }
    // Room for every referenced read in both, given once: pages never
    // written take no memory, where growing by doubling held the old and
    // the new array at once (on pigz + zlib 37M and 7M entries).
    plainReads_.reserve(referenced);
    readRep_.reserve(referenced);
  }

  void dropLocalAccesses(LocalReductionStats &s) {
    for (EventId i = 0; i < t_.events.size(); ++i) {
      const Event &e = t_.events[i];
      bool local = (e.kind == EventKind::Read || e.kind == EventKind::Write) &&
                   owner_[e.obj] != kShared;
      // A plain write's value needs every read before it; a local read's
      // value needs only reads before it (its writer's), so the shared
      // reads and tryfails before the write are all it needs.
      std::vector<EventId> &sharedReads = sharedReads_[e.thread];
      if ((trace::readsValue(e.kind) && !local) || e.kind == EventKind::TryFail)
        sharedReads.push_back(i);
      if (!local) {
        if (t_.hasDeps(e))
          listedFrom(i); // keeps what its list needs
        continue;
      }
      keep_[i] = false;
      Value &v = loc_[e.obj];
      if (e.kind == EventKind::Write) {
        v = {i, Rep{}, false, !t_.hasDeps(e)};
        if (!sharedReads.empty())
          v.rep = {0, sharedReads.back(), i, kNone};
        if (t_.hasDeps(e)) {
          v.rep = repOf(i);
          v.long_ = sets_[v.rep.set].size() > maxListed_;
        }
      } else if (v.long_ && referenced_[i]) {
        // Too long a list to carry: this read stays, with its writer (whose
        // list is then rewritten), and stands for the later reads of it.
        keep_[i] = true;
        keep_[v.writer] = true;
        listedFrom(v.writer); // keeps what the writer's list needs
        v = {v.writer, {intern({i}), kNone, kNone}, false, false};
      } else if (referenced_[i] && (v.writer == kNone || v.plain)) {
        // The read's value is its writer's (no other thread writes here);
        // with no writer it is the initial value, the same in every
        // schedule (a consistent trace: init or the first-read rule).
        plainReads_.push_back({i, v.writer}); // in increasing i: sorted
      } else if (referenced_[i]) {
        Rep r = v.rep;
        if (r.upTo != kNone && r.plainWriter == v.writer)
          r.plainRead = i;
        readRep_.push_back({i, r}); // in increasing i: sorted
      }
    }
    for (SymId l = 0; l < owner_.size(); ++l)
      if (owner_[l] != kShared && owner_[l] != kUntouched) {
        ++s.localLocations;
        if (owner_[l] >= s.localLocationsOf.size())
          s.localLocationsOf.resize(owner_[l] + 1, 0);
        ++s.localLocationsOf[owner_[l]];
      }
  }

  /// Step 3; then the reduced trace, with `lender`'s tables moved into it
  /// (`lender` is the trace reduced) or, without one, copies of them.
  LocalReduction build(Trace *lender) {
    LocalReduction r;
    const Trace &t = t_;
    size_t n = t.events.size();
    std::vector<std::vector<EventId>> pending(t.numThreads());
    auto closeRun = [&](ThreadId th) {
      std::vector<EventId> &run = pending[th];
      if (run.size() > 1) {
        EventId last = run.back();
        bool plain = false;
        std::vector<EventId> all;
        for (EventId b : run) {
          plain = plain || !t.hasDeps(t.events[b]);
          if (!plain) {
            auto from = listedFrom(b);
            all.insert(all.end(), from.begin(), from.end());
          }
          keep_[b] = b == last;
        }
        r.stats.droppedBranches += run.size() - 1;
        if (plain)
          plainRun_.push_back(last);
        else
          runDeps_[last] = sortedUnique(std::move(all));
      }
      run.clear();
    };
    for (EventId i = 0; i < n; ++i) {
      const Event &e = t.events[i];
      if (e.kind == EventKind::Branch)
        pending[e.thread].push_back(i);
      else if (keep_[i])
        closeRun(e.thread);
    }
    for (ThreadId th = 0; th < pending.size(); ++th)
      closeRun(th);
    std::sort(plainRun_.begin(), plainRun_.end());

    for (EventId i = 0; i < n; ++i)
      if (keep_[i])
        r.original.push_back(i);
    // The reduced id of a kept event: its place in `original` (sorted), by
    // binary search rather than a table of 4 bytes per original event.
    auto newId = [&](EventId i) {
      auto it = std::lower_bound(r.original.begin(), r.original.end(), i);
      return it != r.original.end() && *it == i
                 ? static_cast<EventId>(it - r.original.begin())
                 : kNone;
    };
    Trace &out = r.trace;
    if (lender)
      takeTables(out, std::move(*lender));
    else
      takeTables(out, t);
    out.events.reserve(r.original.size());
    std::vector<EventId> deps;
    for (EventId i : r.original) {
      Event e = t.events[i];
      if (e.kind == EventKind::Wait && e.extra != kNone)
        e.extra = newId(e.extra);
      if (t.hasDeps(e)) {
        if (std::binary_search(plainRun_.begin(), plainRun_.end(), i)) {
          e.extra = kNone;
        } else {
          auto run = runDeps_.find(i);
          deps = run != runDeps_.end() ? run->second : listedFrom(i);
          for (EventId &d : deps)
            d = newId(d);
          e.extra = out.addDeps(deps);
        }
      }
      out.events.push_back(e);
      if (!t.eventStacks.empty())
        out.eventStacks.push_back(t.stackOf(i));
      if ((e.kind == EventKind::Read || e.kind == EventKind::Write) &&
          owner_[e.obj] != kShared) {
        ++r.stats.keptLocalAccesses;
        std::vector<size_t> &of = r.stats.keptLocalAccessesOf;
        if (e.thread >= of.size())
          of.resize(e.thread + 1, 0);
        ++of[e.thread];
      }
    }
    r.stats.events = n;
    r.stats.keptEvents = r.original.size();
    r.stats.droppedAccesses = n - r.original.size() - r.stats.droppedBranches;
    return r;
  }

private:
  /// What a value came from: the kept reads of `set`, and, unless upTo is
  /// kNone, every read and tryfail of the thread up to upTo, the last before
  /// plainWriter (a write with no list) whose value plainRead (kept when
  /// needed) read.
  struct Rep {
    uint32_t set = 0;
    EventId upTo = kNone;
    EventId plainWriter = kNone;
    EventId plainRead = kNone;
  };
  /// A local location's current value: its last writer (kNone: the initial
  /// value) and what it came from; long_: too long a list to carry;
  /// plain: the writer has no list (rep follows from it: plainRep).
  struct Value {
    EventId writer = kNone;
    Rep rep;
    bool long_ = false;
    bool plain = false;
  };

  /// What read `r` of a plain write `w`'s value (or, with w = kNone, of
  /// the initial value) stands for: every read and tryfail of the thread up
  /// to the last one before w, which r says when kept (Value::rep at w).
  Rep plainRep(EventId r, EventId w) const {
    if (w == kNone)
      return {};
    const std::vector<EventId> &reads = sharedReads_[t_.events[w].thread];
    auto it = std::lower_bound(reads.begin(), reads.end(), w);
    if (it == reads.begin())
      return {};
    return {0, *std::prev(it), w, r};
  }

  /// What dropped read `r` stands for, or nullopt if `r` is kept.
  std::optional<Rep> droppedRead(EventId r) const {
    auto it = std::lower_bound(readRep_.begin(), readRep_.end(), r,
                               [](const std::pair<EventId, Rep> &x,
                                  EventId id) { return x.first < id; });
    if (it != readRep_.end() && it->first == r)
      return it->second;
    auto p = std::lower_bound(plainReads_.begin(), plainReads_.end(),
                              std::make_pair(r, EventId{0}));
    if (p != plainReads_.end() && p->first == r)
      return plainRep(r, p->second);
    return std::nullopt;
  }

  static std::vector<EventId> sortedUnique(std::vector<EventId> v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
  }

  /// What the values of listed event `e`'s dependences came from.
  Rep repOf(EventId e) {
    std::vector<EventId> set;
    Rep out;
    auto [b, en] = t_.deps(t_.events[e]);
    for (; b != en; ++b) {
      std::optional<Rep> dropped = droppedRead(*b);
      if (!dropped) {
        set.push_back(*b); // a kept read
        continue;
      }
      const Rep &r = *dropped;
      set.insert(set.end(), sets_[r.set].begin(), sets_[r.set].end());
      // "Every read up to u" implies it for every u' before u.
      if (r.upTo != kNone && (out.upTo == kNone || r.upTo > out.upTo))
        out = {0, r.upTo, r.plainWriter, r.plainRead};
    }
    out.set = intern(sortedUnique(std::move(set)));
    return out;
  }

  /// The kept reads listed event `e` depends on, as the reduced trace lists
  /// them. A plain writer w in its origin stands for every read up to the
  /// last one before w: a plain branch after that read and before `e`
  /// already requires them of `e` (it precedes `e` in every schedule that
  /// has `e`); otherwise one read of w stays, with w, and says it.
  std::vector<EventId> listedFrom(EventId e) {
    Rep r = repOf(e);
    std::vector<EventId> out = sets_[r.set];
    if (r.upTo == kNone)
      return out;
    const std::vector<EventId> &pb = plainBranches_[t_.events[e].thread];
    auto next = std::upper_bound(pb.begin(), pb.end(), r.upTo);
    if (next != pb.end() && *next < e)
      return out;
    auto [kept, fresh] = keptReader_.emplace(r.plainWriter, r.plainRead);
    if (fresh)
      keep_[r.plainWriter] = keep_[r.plainRead] = true;
    out.push_back(kept->second);
    return sortedUnique(std::move(out));
  }

  uint32_t intern(std::vector<EventId> s) {
    if (s.empty())
      return 0;
    auto [it, fresh] =
        setIds_.emplace(std::move(s), static_cast<uint32_t>(sets_.size()));
    if (fresh)
      sets_.push_back(it->first);
    return it->second;
  }

  struct VecHash {
    size_t operator()(const std::vector<EventId> &v) const {
      size_t h = v.size();
      for (EventId x : v)
        h = h * 1000003u ^ x;
      return h;
    }
  };

  const Trace &t_;
  size_t maxListed_;
  std::vector<uint32_t> owner_;
  /// Per original event, one bit each (the reduction's only tables sized by
  /// the whole trace; the others grow with local reads and locations).
  std::vector<bool> keep_, referenced_;
  std::vector<Value> loc_;
  /// Referenced dropped reads, sorted by id: what their value came from
  /// (a sorted vector: 20 bytes an entry where a hash map took ~50); those
  /// of a plain write's or the initial value as their writer alone (8
  /// bytes: 37M of the 44M on pigz + zlib); the one read kept for a plain
  /// writer.
  std::vector<std::pair<EventId, Rep>> readRep_;
  std::vector<std::pair<EventId, EventId>> plainReads_;
  std::unordered_map<EventId, EventId> keptReader_;
  std::vector<std::vector<EventId>> plainBranches_;
  /// Per thread, its shared reads and tryfails so far (a plain write's
  /// value needs every one before it).
  std::vector<std::vector<EventId>> sharedReads_;

  std::vector<std::vector<EventId>> sets_{{}};
  std::unordered_map<std::vector<EventId>, uint32_t, VecHash> setIds_;
  /// Kept branches standing for a run: with a plain branch in it (sorted),
  /// else with the union of the run's listed reads.
  std::vector<EventId> plainRun_;
  std::unordered_map<EventId, std::vector<EventId>> runDeps_;
};

} // namespace

Trace tablesOf(const Trace &t) {
  Trace out;
  takeTables(out, t);
  return out;
}

namespace {
LocalReduction reduce(const Trace &t, size_t maxListed, Trace *lender,
                      const std::vector<bool> *shared) {
  Reducer red(t, maxListed, shared);
  LocalReductionStats s;
  red.dropLocalAccesses(s);
  LocalReduction r = red.build(lender);
  r.stats.localLocations = s.localLocations;
  r.stats.localLocationsOf = std::move(s.localLocationsOf);
  return r;
}
} // namespace

LocalReduction reduceThreadLocal(const Trace &t, size_t maxListed,
                                 const std::vector<bool> *shared) {
  return reduce(t, maxListed, nullptr, shared);
}

LocalReduction reduceThreadLocalLending(Trace &t, size_t maxListed,
                                        const std::vector<bool> *shared) {
  return reduce(t, maxListed, &t, shared);
}

void giveBackTables(LocalReduction &r, Trace &t) {
  takeTables(t, std::move(r.trace));
}

} // namespace racepredict::analysis
