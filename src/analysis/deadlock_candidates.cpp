//===- analysis/deadlock_candidates.cpp - Ownership deadlock sets ---------===//
//
// The ownership search: sets of threads each waiting for something only
// another member (or a thread that finished for good) can give — a lock it
// holds, its termination, its creation. These rules hold whatever the
// other threads do, so the members' positions are the whole candidate. A
// depth-first search assigns each thread "not a member" or one of its
// classes of blocking positions (deadlock_search.h, OwnershipSet: the
// abstract lock graph's nodes), pruning as soon as a member can no longer
// be justified by the threads still undecided. Each solution is a set of
// classes; its concrete instances are enumerated lazily, in candidate
// order, by InstanceCursor (deadlock_instances.cpp), so that a cycle of
// five threads over a thousand rounds each costs one search, not 10^15
// combinations.
//
#include "deadlock_search.h"

#include <algorithm>
#include <exception>
#include <map>
#include <numeric>
#include <system_error>
#include <tuple>

#include <pthread.h>

namespace racepredict::analysis::detail {

using trace::Event;
using trace::EventKind;

namespace {

/// A position an ownership rule can justify, and what justifies it.
/// The search runs on one representative per class; `instances` are the
/// class's positions.
struct Node {
  Position pos;
  ThreadId thread = kNone;
  EventKind kind = EventKind::Acquire;
  SymId lock = kNone;   ///< lock-kind: the lock requested
  bool readReq = false; ///< racq
  std::vector<Position> *instances = nullptr;
  /// What can justify this node as a member, found on first need
  /// (OwnershipSearch::justifiers): per thread u, a node of u that holds
  /// its lock against it and can be in one candidate with it, or nullptr:
  /// u, finished, abandons the lock. For a join, the joined thread's nodes
  /// that can be in one candidate with it.
  mutable std::vector<std::pair<ThreadId, const Node *>> justifiers;
  mutable bool justifiersKnown = false;
};

/// What the ownership rules, the lock filter and the report's grouping see
/// of a position: operation, objects and source line; never created; at
/// the thread's first event (its fork must have run); forks done before it
/// (whom it has created); the locks it holds and their modes.
using ClassKey = std::tuple<uint8_t, uint32_t, uint32_t, uint64_t, bool, bool,
                            size_t, std::vector<std::pair<SymId, bool>>>;

class OwnershipSearch {
public:
  OwnershipSearch(DeadlockSearch &s, OwnershipSets &out)
      : s_(s), out_(out), nodes_(s.nt) {}

  void run() {
    collect();
    prune();
    decided_.assign(s_.nt, Position());
    chosen_.assign(s_.nt, nullptr);
    // Creators before the threads they create (by the fork's place in the
    // trace; threads never forked first), so that a never-created member
    // is known when its turn comes (neverCreated).
    order_.resize(s_.nt);
    std::iota(order_.begin(), order_.end(), 0);
    auto forkAt = [&](ThreadId u) {
      EventId f = s_.forkOf(u);
      return f == kNone ? int64_t{-1} : int64_t{f};
    };
    std::stable_sort(order_.begin(), order_.end(), [&](ThreadId a, ThreadId b) {
      return forkAt(a) < forkAt(b);
    });
    rank_.resize(s_.nt);
    for (size_t i = 0; i < s_.nt; ++i)
      rank_[order_[i]] = i;
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
      std::vector<uint32_t> forks; // positions of u's forks
      for (EventId e : te)
        if (events[e].kind == EventKind::Fork)
          forks.push_back(s_.idx.posInThread(e));
      std::map<ClassKey, size_t> classOf;
      auto add = [&](EventId e, bool unforked) {
        Node n = make(e, unforked);
        const Event &ev = events[e];
        std::vector<std::pair<SymId, bool>> held;
        for (uint32_t x : *n.pos.holds)
          held.emplace_back(s_.idx.sections()[x].lock,
                            s_.idx.sections()[x].readMode);
        std::sort(held.begin(), held.end());
        size_t forksBefore =
            unforked ? 0
                     : std::lower_bound(forks.begin(), forks.end(), n.pos.pos) -
                           forks.begin();
        ClassKey key{uint8_t(ev.kind), ev.obj,
                     ev.aux,           ev.src,
                     unforked,         !unforked && n.pos.pos == 0,
                     forksBefore,      std::move(held)};
        auto [it, fresh] = classOf.emplace(std::move(key), nodes_[u].size());
        if (fresh) {
          n.instances = &out_.classes.emplace_back();
          nodes_[u].push_back(n);
        }
        nodes_[u][it->second].instances->push_back(n.pos);
      };
      if (!te.empty() && s_.forkOf(u) != kNone)
        add(te[0], true);
      for (EventId e : te) {
        EventKind k = events[e].kind;
        if (k == EventKind::Acquire || k == EventKind::RAcquire ||
            k == EventKind::Wait || k == EventKind::Join)
          add(e, false);
      }
    }
  }

  Node make(EventId e, bool unforked) {
    const Event &ev = s_.t.events[e];
    Node n;
    n.pos = s_.member(e, unforked);
    n.thread = ev.thread;
    n.kind = ev.kind;
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

  /// Whether dfs() may pick `y` next to member `n` (either decided first).
  bool compatible(const Node &y, const Node &n) const {
    return !s_.opts.filters ||
           (s_.locksCompatible(y.pos, n.pos) && mayMeet(y, n));
  }

  /// Node::justifiers of a lock-kind or join node. Only nodes dfs() may
  /// pick next to `n` count: a holder that can never be in one candidate
  /// with it (e.g. a thread joined before `n`'s was created, in a churn
  /// trace) would keep a hopeless branch open down to the last thread.
  const std::vector<std::pair<ThreadId, const Node *>> &
  justifiers(const Node &n) const {
    if (n.justifiersKnown)
      return n.justifiers;
    n.justifiersKnown = true;
    if (n.kind == EventKind::Join) {
      ThreadId c = s_.t.events[n.pos.event].obj;
      for (const Node &y : nodes_[c])
        if (compatible(y, n))
          n.justifiers.emplace_back(c, &y);
      return n.justifiers;
    }
    for (ThreadId u = 0; u < s_.nt; ++u) {
      if (u == n.thread)
        continue;
      if (abandons(u, n))
        n.justifiers.emplace_back(u, nullptr);
      for (const Node &y : nodes_[u])
        if (holdsAgainst(y, n) && compatible(y, n))
          n.justifiers.emplace_back(u, &y);
    }
    return n.justifiers;
  }

  /// Can member `n` still be justified, given the threads decided so far
  /// (order_[0 .. upTo]) and those still open?
  bool justifiable(const Node &n, size_t upTo) const {
    auto open = [&](ThreadId u) { return rank_[u] > upTo; };
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
      return open(c) ? !justifiers(n).empty()
                     : decided_[c].kind == Position::Member;
    }
    // A decided member's node is compatible with `n` (dfs() checked it), so
    // it justifies `n` iff it is among the justifiers.
    for (auto [u, y] : justifiers(n))
      if (open(u) ||
          (y ? chosen_[u] == y : decided_[u].kind == Position::Absent))
        return true;
    return false;
  }

  bool feasibleSoFar(size_t upTo) const {
    for (ThreadId u : active_)
      if (!justifiable(*chosen_[u], upTo))
        return false;
    return true;
  }

  /// Some position of class x and some of class y may be in one cut
  /// (InstanceCursor decides which): the least that x's first position
  /// needs of y's thread is at most y's last position, and vice versa —
  /// clocks only grow along a thread. Rules out the classes of threads
  /// that fork and join ordered, e.g. one pair of a churn trace and the
  /// next, before their instances are ever combined.
  bool mayMeet(const Node &x, const Node &y) const {
    const Position &xf = x.instances->front(), &xl = x.instances->back();
    const Position &yf = y.instances->front(), &yl = y.instances->back();
    return !(xf.clockOf != kNone &&
             s_.mhb.entry(xf.clockOf, y.thread) > yl.pos) &&
           !(yf.clockOf != kNone &&
             s_.mhb.entry(yf.clockOf, x.thread) > xl.pos);
  }

  /// For the default report: `u`'s creator is decided, a member blocked
  /// before the fork, so `u` is a never-created member, not a choice.
  bool neverCreated(ThreadId u) const {
    ThreadId c = s_.creatorOf(u);
    if (!s_.opts.defaultReport || c == kNone || rank_[c] >= rank_[u] ||
        decided_[c].kind != Position::Member || decided_[c].unforked ||
        decided_[c].pos >= s_.idx.posInThread(s_.forkOf(u)))
      return false;
    return std::any_of(nodes_[u].begin(), nodes_[u].end(),
                       [](const Node &n) { return n.pos.unforked; });
  }

  /// Decides thread order_[i] and the rest.
  void dfs(size_t i) {
    if (!s_.step())
      return;
    if (i == s_.nt) {
      leaf();
      return;
    }
    ThreadId u = order_[i];
    bool uncreated = neverCreated(u);
    decided_[u] = Position();
    decided_[u].kind = Position::Absent;
    if (!uncreated && feasibleSoFar(i))
      dfs(i + 1);
    for (const Node &n : nodes_[u]) {
      if (s_.stopped())
        return;
      if (uncreated && !n.pos.unforked)
        continue;
      if (!std::all_of(active_.begin(), active_.end(),
                       [&](ThreadId v) { return compatible(n, *chosen_[v]); }))
        continue;
      decided_[u] = n.pos;
      chosen_[u] = &n;
      bool fixed = n.pos.unforked;
      if (!fixed)
        active_.push_back(u);
      if ((!fixed || justifiable(n, i)) && feasibleSoFar(i))
        dfs(i + 1);
      if (!fixed)
        active_.pop_back();
    }
    decided_[u] = Position();
    chosen_[u] = nullptr;
  }

  void leaf() {
    OwnershipSet set;
    DeadlockCandidate &c = set.shape;
    c.ownership = true;
    c.locksOnly = true;
    std::vector<ThreadId> &members = set.threads;
    for (ThreadId u = 0; u < s_.nt; ++u)
      if (decided_[u].kind == Position::Member)
        members.push_back(u);
    if (members.empty())
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
      set.classes.push_back(n.instances);
      c.members.push_back({kNone, n.pos.unforked});
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
    if (s_.opts.defaultReport && !c.connected)
      return;
    out_.sets.push_back(std::move(set));
  }

  DeadlockSearch &s_;
  OwnershipSets &out_;
  std::vector<std::vector<Node>> nodes_; ///< per thread, one per class
  std::vector<Position> decided_;
  std::vector<const Node *> chosen_;
  /// The decided members, but those never created: whether one of those
  /// is justified depends on its creator alone, decided before it, and it
  /// is compatible with whatever is compatible with its creator (what
  /// needs an event of it needs its fork, which the creator has not done).
  /// A blocked join leaving a thousand threads uncreated makes each
  /// further step check its two or three real members, not a thousand.
  std::vector<ThreadId> active_;
  std::vector<ThreadId> order_; ///< the order threads are decided in
  std::vector<size_t> rank_;    ///< per thread, its place in order_
};

} // namespace

OwnershipSets searchOwnershipSets(DeadlockSearch &s) {
  OwnershipSets out;
  // dfs() recurses once per thread: the 40,001 threads of 20,000 churned
  // pairs overflowed the default 8 MB stack. The search runs on a thread
  // of its own with room for every level (only the pages used are ever
  // touched); what it throws (e.g. out of memory) is thrown here.
  struct Job {
    DeadlockSearch &s;
    OwnershipSets &out;
    std::exception_ptr error;
  } job{s, out, nullptr};
  auto body = [](void *arg) -> void * {
    auto *j = static_cast<Job *>(arg);
    try {
      OwnershipSearch(j->s, j->out).run();
    } catch (...) {
      j->error = std::current_exception();
    }
    return nullptr;
  };
  constexpr size_t kBytesPerLevel = 1024, kBase = size_t{8} << 20;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, kBase + kBytesPerLevel * s.nt);
  pthread_t th;
  int err = pthread_create(&th, &attr, body, &job);
  pthread_attr_destroy(&attr);
  if (err != 0)
    throw std::system_error(err, std::generic_category(),
                            "starting the deadlock search");
  pthread_join(th, nullptr);
  if (job.error)
    std::rethrow_exception(job.error);
  return out;
}

} // namespace racepredict::analysis::detail
