//===- analysis/deadlock_candidates.cpp - Ownership deadlock sets ---------===//
//
// The ownership search: sets of threads each waiting for something only
// another member (or a thread that finished for good) can give — a lock it
// holds, its termination, its creation. These rules hold whatever the
// other threads do, so the members' positions are the whole candidate. A
// depth-first search assigns each thread "not a member" or one of its
// possible blocking events, pruning as soon as a member can no longer be
// justified by the threads still undecided.
//
#include "deadlock_search.h"

#include <algorithm>
#include <array>
#include <numeric>

namespace racepredict::analysis {
namespace detail {

using trace::Event;
using trace::EventKind;

bool mayBlock(EventKind k) {
  switch (k) {
  case EventKind::Acquire:
  case EventKind::RAcquire:
  case EventKind::Wait:
  case EventKind::Join:
  case EventKind::SemWait:
  case EventKind::Barrier:
    return true;
  default:
    return false;
  }
}

DeadlockSearch::DeadlockSearch(const TraceIndex &i, const MustHappenBefore &m,
                               const DeadlockCandidateOptions &o,
                               DeadlockCandidateStats *st)
    : idx(i), t(i.trace()), mhb(m), opts(o), stats(st), nt(i.numThreads()) {
  threadSections_.resize(nt);
  for (uint32_t s = 0; s < idx.sections().size(); ++s)
    threadSections_[idx.sections()[s].thread].push_back(s);
  finalHolds_.resize(nt);
  finished_.resize(nt);
  canFinish_.resize(nt);
  for (ThreadId u = 0; u < nt; ++u) {
    const auto &te = idx.threadEvents(u);
    uint32_t len = static_cast<uint32_t>(te.size());
    finalHolds_[u] = heldSections(idx, u, len, false, &threadSections_[u]);
    Position &p = finished_[u];
    p.kind = Position::Finished;
    p.pos = len;
    p.clockOf = te.empty() ? kNone : te.back();
    p.holds = &finalHolds_[u];
    canFinish_[u] = canStayFinished(idx, u);
  }
  semSteps_.resize(nt);
  for (EventId e = 0; e < t.events.size(); ++e) {
    const Event &ev = t.events[e];
    stats->blockingEvents += mayBlock(ev.kind);
    if (ev.kind != EventKind::SemInit && ev.kind != EventKind::SemPost &&
        ev.kind != EventKind::SemWait)
      continue;
    auto &steps = semSteps_[ev.thread][ev.obj];
    if (steps.empty() &&
        std::find(sems_.begin(), sems_.end(), ev.obj) == sems_.end())
      sems_.push_back(ev.obj);
    SemStep st{idx.posInThread(e) + 1, 0, 0};
    if (!steps.empty())
      st.waits = steps.back().waits, st.posts = steps.back().posts;
    if (ev.kind == EventKind::SemWait)
      ++st.waits;
    else
      st.posts += ev.kind == EventKind::SemPost ? 1 : ev.value;
    steps.push_back(st);
  }
}

const DeadlockSearch::SemStep *DeadlockSearch::semAt(ThreadId u, SymId sem,
                                                     uint32_t pos) const {
  auto it = semSteps_[u].find(sem);
  if (it == semSteps_[u].end())
    return nullptr;
  // The last step at or before `pos` executed events.
  auto st =
      std::upper_bound(it->second.begin(), it->second.end(), pos,
                       [](uint32_t p, const SemStep &x) { return p < x.pos; });
  return st == it->second.begin() ? nullptr : &*(st - 1);
}

int64_t DeadlockSearch::semWaits(ThreadId u, SymId sem, uint32_t pos) const {
  const SemStep *st = semAt(u, sem, pos);
  return st ? st->waits : 0;
}

int64_t DeadlockSearch::semPosts(ThreadId u, SymId sem, uint32_t pos) const {
  const SemStep *st = semAt(u, sem, pos);
  return st ? st->posts : 0;
}

int64_t DeadlockSearch::semNet(ThreadId u, SymId sem, uint32_t pos) const {
  const SemStep *st = semAt(u, sem, pos);
  return st ? st->posts - st->waits : 0;
}

bool DeadlockSearch::semaphoresCanServe(const std::vector<Position> &pos,
                                        bool hang) const {
  if (!opts.filters)
    return true;
  for (SymId sem : sems_) {
    int64_t posts = idx.semInitialCount(sem), waits = 0;
    for (ThreadId u = 0; u < nt; ++u) {
      const Position &p = pos[u];
      bool member = p.kind == Position::Member;
      uint32_t at = member ? p.pos : finished_[u].pos;
      posts += semPosts(u, sem, at);
      if (member || hang)
        waits += semWaits(u, sem, at);
    }
    if (waits > posts)
      return false;
  }
  return true;
}

Position DeadlockSearch::member(EventId e, bool unforked) {
  const Event &ev = t.events[e];
  Position p;
  p.kind = Position::Member;
  p.event = e;
  p.unforked = unforked;
  if (unforked) {
    p.holds = &holdsAt_[{e, true}]; // nothing ran: nothing held
    return p;
  }
  p.pos = idx.posInThread(e);
  p.half = hasTwoHalves(ev.kind);
  EventId prev = idx.poPrev(e);
  if (prev != kNone)
    p.clockOf = prev;
  else if (EventId f = idx.forkOf(ev.thread); f != kNone)
    p.clockOf = f; // created: the fork has run
  auto [it, fresh] =
      holdsAt_.emplace(std::make_pair(e, false), std::vector<uint32_t>());
  if (fresh)
    it->second = heldSections(idx, ev.thread, p.pos, p.half,
                              &threadSections_[ev.thread]);
  p.holds = &it->second;
  return p;
}

bool DeadlockSearch::excludes(const std::vector<uint32_t> &holds, SymId lock,
                              bool readRequest) const {
  return std::any_of(holds.begin(), holds.end(), [&](uint32_t s) {
    const LockSection &ls = idx.sections()[s];
    return ls.lock == lock && (!readRequest || !ls.readMode);
  });
}

bool DeadlockSearch::consistent(ThreadId a, const Position &pa, ThreadId b,
                                const Position &pb) const {
  if (!opts.filters)
    return true;
  bool decided[2] = {
      pa.kind == Position::Member || pa.kind == Position::Finished,
      pb.kind == Position::Member || pb.kind == Position::Finished};
  if (!decided[0] || !decided[1])
    return true;
  if ((pa.clockOf != kNone && mhb.entry(pa.clockOf, b) > pb.pos) ||
      (pb.clockOf != kNone && mhb.entry(pb.clockOf, a) > pa.pos))
    return false;
  for (uint32_t s : *pa.holds) {
    const LockSection &ls = idx.sections()[s];
    if (excludes(*pb.holds, ls.lock, ls.readMode))
      return false;
  }
  return true;
}

bool DeadlockSearch::step() {
  if (stats->truncated)
    return false;
  if (opts.maxSearchSteps && ++stats->searchSteps > opts.maxSearchSteps) {
    stats->truncated = true;
    return false;
  }
  return true;
}

bool DeadlockSearch::emit(DeadlockCandidate c) {
  auto [it, fresh] = index_.emplace(c.members, out_.size());
  if (!fresh) {
    DeadlockCandidate &old = out_[it->second];
    if (c.ownership && !old.ownership) {
      old.ownership = true;
      old.finishedHolders = std::move(c.finishedHolders);
      old.forksDone = std::move(c.forksDone);
      old.connected = c.connected;
    }
    old.hang = old.hang || c.hang;
    return true;
  }
  (c.hang ? stats->hangs : stats->ownership) += 1;
  stats->lockCycles += c.locksOnly;
  out_.push_back(std::move(c));
  if (opts.maxCandidates && out_.size() >= opts.maxCandidates) {
    stats->truncated = true;
    return false;
  }
  return true;
}

std::vector<DeadlockCandidate> DeadlockSearch::take() {
  return std::move(out_);
}

namespace {

/// A position an ownership rule can justify, and what justifies it.
struct Node {
  Position pos;
  ThreadId thread;
  EventKind kind;
  SymId lock = kNone;   ///< lock-kind: the lock requested
  bool readReq = false; ///< racq
};

class OwnershipSearch {
public:
  explicit OwnershipSearch(DeadlockSearch &s) : s_(s), nodes_(s.nt) {}

  void run() {
    collect();
    prune();
    decided_.assign(s_.nt, Position());
    chosen_.assign(s_.nt, nullptr);
    dfs(0);
  }

private:
  bool lockKind(const Node &n) const {
    return !n.pos.unforked &&
           (n.kind == EventKind::Acquire || n.kind == EventKind::RAcquire ||
            n.kind == EventKind::Wait);
  }

  void collect() {
    const auto &events = s_.t.events;
    for (ThreadId u = 0; u < s_.nt; ++u) {
      const auto &te = s_.idx.threadEvents(u);
      if (!te.empty() && s_.forkOf(u) != kNone)
        nodes_[u].push_back(make(te[0], true));
      for (EventId e : te) {
        EventKind k = events[e].kind;
        if (k == EventKind::Acquire || k == EventKind::RAcquire ||
            k == EventKind::Wait || k == EventKind::Join)
          nodes_[u].push_back(make(e, false));
      }
    }
  }

  Node make(EventId e, bool unforked) {
    const Event &ev = s_.t.events[e];
    Node n{s_.member(e, unforked), ev.thread, ev.kind};
    if (lockKind(n)) {
      n.lock = requestedLock(ev);
      n.readReq = ev.kind == EventKind::RAcquire;
    }
    return n;
  }

  /// Whether a finished `u` would hold `n`'s lock against it for good.
  bool abandons(ThreadId u, const Node &n) const {
    return u != n.thread && s_.canFinish(u) &&
           s_.excludes(*s_.finished(u).holds, n.lock, n.readReq);
  }

  bool holdsAgainst(const Node &holder, const Node &n) const {
    return !holder.pos.unforked &&
           s_.excludes(*holder.pos.holds, n.lock, n.readReq);
  }

  /// Drops positions no ownership rule can ever justify, to a fixpoint.
  void prune() {
    bool changed = true;
    while (changed) {
      changed = false;
      for (ThreadId u = 0; u < s_.nt; ++u) {
        auto &ns = nodes_[u];
        auto keep = std::remove_if(ns.begin(), ns.end(),
                                   [&](const Node &n) { return !possible(n); });
        if (keep != ns.end()) {
          ns.erase(keep, ns.end());
          changed = true;
        }
      }
    }
  }

  bool possible(const Node &n) const {
    if (n.pos.unforked) {
      ThreadId c = s_.creatorOf(n.thread);
      uint32_t forkPos = s_.idx.posInThread(s_.forkOf(n.thread));
      return std::any_of(nodes_[c].begin(), nodes_[c].end(),
                         [&](const Node &y) { return y.pos.pos < forkPos; });
    }
    if (n.kind == EventKind::Join)
      return n.thread != s_.t.events[n.pos.event].obj &&
             !nodes_[s_.t.events[n.pos.event].obj].empty();
    for (ThreadId u = 0; u < s_.nt; ++u) {
      if (u == n.thread)
        continue;
      if (abandons(u, n))
        return true;
      for (const Node &y : nodes_[u])
        if (holdsAgainst(y, n))
          return true;
    }
    return false;
  }

  /// Can member `n` still be justified, given the threads decided so far
  /// (0 .. upTo) and those still open?
  bool justifiable(const Node &n, ThreadId upTo) const {
    auto open = [&](ThreadId u) { return u > upTo; };
    if (n.pos.unforked) {
      ThreadId c = s_.creatorOf(n.thread);
      if (open(c))
        return true;
      const Position &p = decided_[c];
      return p.kind == Position::Member && !p.unforked &&
             p.pos < s_.idx.posInThread(s_.forkOf(n.thread));
    }
    if (n.kind == EventKind::Join) {
      ThreadId c = s_.t.events[n.pos.event].obj;
      return open(c) || decided_[c].kind == Position::Member;
    }
    for (ThreadId u = 0; u < s_.nt; ++u) {
      if (u == n.thread)
        continue;
      if (open(u) || decided_[u].kind == Position::Absent) {
        if (abandons(u, n))
          return true;
      }
      if (open(u)) {
        for (const Node &y : nodes_[u])
          if (holdsAgainst(y, n))
            return true;
      } else if (decided_[u].kind == Position::Member &&
                 holdsAgainst(*chosen_[u], n)) {
        return true;
      }
    }
    return false;
  }

  bool feasibleSoFar(ThreadId upTo) const {
    for (ThreadId u = 0; u <= upTo; ++u)
      if (decided_[u].kind == Position::Member &&
          !justifiable(*chosen_[u], upTo))
        return false;
    return true;
  }

  void dfs(ThreadId u) {
    if (!s_.step())
      return;
    if (u == s_.nt) {
      leaf();
      return;
    }
    decided_[u] = Position();
    decided_[u].kind = Position::Absent;
    if (feasibleSoFar(u))
      dfs(u + 1);
    for (const Node &n : nodes_[u]) {
      if (s_.stopped())
        return;
      bool ok = true;
      for (ThreadId v = 0; v < u && ok; ++v)
        ok = s_.consistent(u, n.pos, v, decided_[v]);
      if (!ok)
        continue;
      decided_[u] = n.pos;
      chosen_[u] = &n;
      if (feasibleSoFar(u))
        dfs(u + 1);
    }
    decided_[u] = Position();
    chosen_[u] = nullptr;
  }

  void leaf() {
    DeadlockCandidate c;
    c.ownership = true;
    c.locksOnly = true;
    std::vector<ThreadId> members;
    for (ThreadId u = 0; u < s_.nt; ++u)
      if (decided_[u].kind == Position::Member)
        members.push_back(u);
    if (members.empty() || !s_.semaphoresCanServe(decided_, false))
      return;
    // Union-find over "waits for" between members: one deadlock or several.
    std::vector<size_t> root(s_.nt);
    std::iota(root.begin(), root.end(), 0);
    auto find = [&](size_t x) {
      while (root[x] != x)
        x = root[x] = root[root[x]];
      return x;
    };
    auto unite = [&](ThreadId a, ThreadId b) { root[find(a)] = find(b); };
    for (ThreadId m : members) {
      const Node &n = *chosen_[m];
      c.members.push_back({n.pos.event, n.pos.unforked});
      std::vector<ThreadId> holders;
      bool justified = false;
      c.locksOnly = c.locksOnly && lockKind(n);
      if (n.pos.unforked) {
        unite(m, s_.creatorOf(m));
        justified = true;
      } else if (n.kind == EventKind::Join) {
        unite(m, s_.t.events[n.pos.event].obj);
        justified = true;
      } else {
        for (ThreadId v : members)
          if (v != m && holdsAgainst(*chosen_[v], n)) {
            unite(m, v);
            justified = true;
          }
        if (!justified)
          for (ThreadId v = 0; v < s_.nt; ++v)
            if (decided_[v].kind == Position::Absent && abandons(v, n))
              holders.push_back(v);
      }
      if (!justified && holders.empty())
        return; // cannot happen after the pruning; kept as a guard
      c.finishedHolders.push_back(std::move(holders));
      // A thread at its first event runs only once created.
      EventId f = s_.forkOf(m);
      if (!n.pos.unforked && n.pos.pos == 0 && f != kNone &&
          decided_[s_.creatorOf(m)].kind != Position::Member)
        c.forksDone.push_back(f);
    }
    for (ThreadId m : members)
      c.connected = c.connected && find(m) == find(members[0]);
    // Keep members sorted by event (threads were visited in order).
    std::vector<size_t> order(c.members.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return c.members[a] < c.members[b]; });
    DeadlockCandidate sorted = c;
    for (size_t i = 0; i < order.size(); ++i) {
      sorted.members[i] = c.members[order[i]];
      sorted.finishedHolders[i] = c.finishedHolders[order[i]];
    }
    s_.emit(std::move(sorted));
  }

  DeadlockSearch &s_;
  std::vector<std::vector<Node>> nodes_;
  std::vector<Position> decided_;
  std::vector<const Node *> chosen_;
};

} // namespace

void searchOwnershipSets(DeadlockSearch &s) { OwnershipSearch(s).run(); }

} // namespace detail

std::vector<DeadlockCandidate>
findDeadlockCandidates(const TraceIndex &idx, const MustHappenBefore &mhb,
                       const DeadlockCandidateOptions &opts,
                       DeadlockCandidateStats *stats) {
  detail::DeadlockSearch s(idx, mhb, opts, stats);
  detail::searchOwnershipSets(s);
  detail::searchHangs(s);
  std::vector<DeadlockCandidate> out = s.take();
  std::sort(out.begin(), out.end(),
            [](const DeadlockCandidate &a, const DeadlockCandidate &b) {
              return a.members < b.members;
            });
  // Group by the members' source locations, as races are grouped by their
  // pair of locations. An event without one (a hand-written trace) stands
  // for its "instruction" — thread, operation and object — so that a loop
  // over the same locks still makes one group, not one per iteration:
  // deadlock candidates combine positions, and per-event groups would make
  // the default report as exponential as --all-pairs.
  std::map<std::vector<std::array<uint64_t, 3>>, uint32_t> groups;
  for (auto &c : out) {
    std::vector<std::array<uint64_t, 3>> key;
    for (const auto &m : c.members) {
      const trace::Event &ev = idx.trace().events[m.event];
      if (ev.src)
        key.push_back({1, ev.src, m.unforked});
      else
        key.push_back(
            {0, uint64_t{ev.thread} << 8 | uint8_t(ev.kind),
             uint64_t{ev.obj} << 33 | uint64_t{ev.aux} << 1 | m.unforked});
    }
    std::sort(key.begin(), key.end());
    c.group =
        groups.emplace(key, static_cast<uint32_t>(groups.size())).first->second;
  }
  return out;
}

} // namespace racepredict::analysis
