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
    index();
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
    // Ranks that share a creator come in runs: one creator's children in
    // fork order, which ForkWindows' ranges can jump over.
    runEnd_.resize(s_.nt + 1, s_.nt);
    for (size_t i = s_.nt; i-- > 0;)
      runEnd_[i] = i + 1 < s_.nt && s_.windows.creator(order_[i + 1]) ==
                                        s_.windows.creator(order_[i])
                       ? runEnd_[i + 1]
                       : i + 1;
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

  /// After the pruning: each thread's last class position (the windows),
  /// whether it has a never-created class, and per lock the threads that
  /// can finish holding it (the only ones that can abandon it).
  void index() {
    std::vector<int64_t> last(s_.nt, -1);
    hasUnforked_.assign(s_.nt, 0);
    for (ThreadId u = 0; u < s_.nt; ++u)
      for (const Node &n : nodes_[u]) {
        last[u] = std::max<int64_t>(last[u], n.instances->back().pos);
        hasUnforked_[u] |= n.pos.unforked;
        if (EventId clock = n.instances->front().clockOf; clock != kNone)
          s_.windows.addClock(clock);
      }
    s_.windows.setLastPositions(std::move(last));
    holding_.resize(s_.nt);
    for (ThreadId u = 0; u < s_.nt; ++u) {
      for (const Node &y : nodes_[u])
        if (!y.pos.unforked)
          for (uint32_t x : *y.pos.holds)
            holding_[u].emplace_back(s_.idx.sections()[x].lock, &y);
      std::sort(holding_[u].begin(), holding_[u].end());
      holding_[u].erase(std::unique(holding_[u].begin(), holding_[u].end()),
                        holding_[u].end());
    }
    for (ThreadId u = 0; u < s_.nt; ++u)
      if (s_.canFinish(u))
        for (uint32_t x : *s_.finished(u).holds) {
          auto &us = finishers_[s_.idx.sections()[x].lock];
          if (us.empty() || us.back() != u)
            us.push_back(u);
        }
  }

  /// Threads that can finish holding `lock`, ascending.
  const std::vector<ThreadId> &finishersOf(SymId lock) const {
    static const std::vector<ThreadId> none;
    auto it = finishers_.find(lock);
    return it == finishers_.end() ? none : it->second;
  }

  /// Calls f(u) for every thread that may have a class `n` (decided, not
  /// never created) can meet: ForkWindows' ranges of each creator's
  /// children, and the threads never forked. Without filters, all.
  template <typename F> void forEachMeeting(const Node &n, F f) {
    for (ThreadId u : s_.windows.roots())
      f(u);
    for (ThreadId c : s_.windows.creators()) {
      const auto &ch = s_.windows.children(c);
      uint32_t lo = 0, hi = static_cast<uint32_t>(ch.size());
      if (s_.opts.filters) {
        EventId clock = n.instances->front().clockOf;
        if (clock != kNone)
          lo = s_.windows.endedBefore(c, clock);
        hi = s_.windows.forkedAfter(c, n.thread, n.instances->back().pos);
      }
      for (uint32_t k = lo; k < hi; ++k)
        f(ch[k]);
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
  /// Only the threads ForkWindows leaves are looked at: the others have
  /// no class compatible with `n`. The list's order does not matter.
  const std::vector<std::pair<ThreadId, const Node *>> &
  justifiers(const Node &n) {
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
    for (ThreadId u : finishersOf(n.lock))
      if (abandons(u, n))
        n.justifiers.emplace_back(u, nullptr);
    forEachMeeting(n, [&](ThreadId u) {
      if (u == n.thread)
        return;
      const auto &h = holding_[u];
      auto it = std::lower_bound(h.begin(), h.end(),
                                 std::make_pair(n.lock, (const Node *)nullptr));
      for (; it != h.end() && it->first == n.lock; ++it)
        if (holdsAgainst(*it->second, n) && compatible(*it->second, n))
          n.justifiers.emplace_back(u, it->second);
    });
    return n.justifiers;
  }

  /// Can member `n` still be justified, given the threads decided so far
  /// (order_[0 .. upTo]) and those still open?
  bool justifiable(const Node &n, size_t upTo) {
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
      return open(c) ? !justifiers(n).empty() : isMember(c);
    }
    // A decided member's node is compatible with `n` (dfs() checked it), so
    // it justifies `n` iff it is among the justifiers.
    for (auto [u, y] : justifiers(n))
      if (open(u) || (y ? chosen_[u] == y : isAbsent(u)))
        return true;
    return false;
  }

  bool feasibleSoFar(size_t upTo) {
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
  /// before the fork, so `u` is a never-created member, not a choice. Such
  /// threads are never decided one by one (forcedUpTo skips them): they
  /// stay implicit, known from their creator's decision.
  bool neverCreated(ThreadId u) const {
    ThreadId c = s_.creatorOf(u);
    return s_.opts.defaultReport && c != kNone && hasUnforked_[u] &&
           decided_[c].kind == Position::Member && !decided_[c].unforked &&
           decided_[c].pos < s_.idx.posInThread(s_.forkOf(u));
  }
  /// Of a decided thread: a member, or not one (threads the search jumped
  /// over are not members unless never created).
  bool isMember(ThreadId u) const {
    return decided_[u].kind == Position::Member || neverCreated(u);
  }
  bool isAbsent(ThreadId u) const {
    return decided_[u].kind == Position::Absent ||
           (decided_[u].kind == Position::Undecided && !neverCreated(u));
  }

  /// The end (a child index of its creator) of a run of threads from `u`
  /// on whose decision is forced — never created, or left no class that
  /// can join the decided members — or 0 if `u` has a choice. Every
  /// decision the search would make there is the one it makes by jumping:
  /// never-created threads are members, the others absent.
  size_t forcedUpTo(ThreadId u) {
    ThreadId c = s_.windows.creator(u);
    size_t k = c == kNone ? 0 : s_.windows.index(u);
    if (nodes_[u].empty())
      return k + 1;
    if (c == kNone)
      return 0;
    const auto &ch = s_.windows.children(c);
    const Position &pc = decided_[c];
    // From this child on, c is a member blocked before the forks: the
    // never-created class is a choice (all pairs) or forced (default).
    size_t uncreatedFrom = pc.kind == Position::Member && !pc.unforked
                               ? s_.windows.firstForkAfter(c, pc.pos)
                               : ch.size();
    if (k >= uncreatedFrom)
      return s_.opts.defaultReport ? ch.size() : 0;
    if (!s_.opts.filters)
      return 0;
    size_t end = k;
    for (ThreadId v : active_) {
      const Node &m = *chosen_[v];
      // Forked after m's class: no decided class of u can meet it, and
      // the never-created one is no choice before uncreatedFrom.
      if (k >= s_.windows.forkedAfter(c, v, m.instances->back().pos))
        end = std::max(end, uncreatedFrom);
      // Ended before m's class: no class of u can meet it.
      EventId clock = m.instances->front().clockOf;
      if (clock != kNone)
        end = std::max<size_t>(end, s_.windows.endedBefore(c, clock));
    }
    return end > k ? end : 0;
  }

  /// The first rank from i on with a choice.
  size_t skipForced(size_t i) {
    while (i < s_.nt) {
      ThreadId u = order_[i];
      size_t end = forcedUpTo(u);
      if (!end)
        break;
      ThreadId c = s_.windows.creator(u);
      size_t next = runEnd_[i];
      if (c != kNone && end < s_.windows.children(c).size())
        next = std::min(next, rank_[s_.windows.children(c)[end]]);
      i = c == kNone ? i + 1 : next;
    }
    return i;
  }

  /// Decides thread order_[i] and the rest.
  void dfs(size_t i) {
    if (!s_.step())
      return;
    // A jump over forced threads: the search checked feasibility at each
    // of them, and a member justifiable with fewer threads open is
    // justifiable with more, so the check at the last one is the same.
    if (size_t j = skipForced(i); j != i) {
      if (feasibleSoFar(j - 1))
        dfs(j);
      return;
    }
    if (i == s_.nt) {
      leaf();
      return;
    }
    ThreadId u = order_[i];
    decided_[u] = Position();
    decided_[u].kind = Position::Absent;
    if (feasibleSoFar(i))
      dfs(i + 1);
    for (const Node &n : nodes_[u]) {
      if (s_.stopped())
        return;
      if (!std::all_of(active_.begin(), active_.end(),
                       [&](ThreadId v) { return compatible(n, *chosen_[v]); }))
        continue;
      decided_[u] = n.pos;
      chosen_[u] = &n;
      bool fixed = n.pos.unforked;
      if (!fixed)
        active_.push_back(u);
      members_.push_back(u);
      if ((!fixed || justifiable(n, i)) && feasibleSoFar(i))
        dfs(i + 1);
      members_.pop_back();
      if (!fixed)
        active_.pop_back();
    }
    decided_[u] = Position();
    chosen_[u] = nullptr;
  }

  /// A solution: the decided members, ascending, and the never-created
  /// ones as ranges of their creators' children — O(members), not
  /// O(threads), per solution.
  void leaf() {
    OwnershipSet set;
    DeadlockCandidate &c = set.shape;
    c.ownership = true;
    c.locksOnly = true;
    std::vector<ThreadId> &members = set.threads;
    members = members_;
    std::sort(members.begin(), members.end());
    if (members.empty())
      return;
    std::vector<size_t> root(members.size());
    std::iota(root.begin(), root.end(), 0);
    std::map<ThreadId, size_t> others; // guard: a non-member waited for
    auto slot = [&](ThreadId u) {
      auto it = std::lower_bound(members.begin(), members.end(), u);
      if (it != members.end() && *it == u)
        return size_t(it - members.begin());
      auto [o, fresh] = others.emplace(u, root.size());
      if (fresh)
        root.push_back(root.size());
      return o->second;
    };
    for (ThreadId m : members) {
      const Position &p = decided_[m];
      if (!s_.opts.defaultReport || p.unforked)
        continue;
      uint32_t from = s_.windows.firstForkAfter(m, p.pos);
      const auto &ch = s_.windows.children(m);
      for (uint32_t k = from; k < ch.size(); ++k)
        if (hasUnforked_[ch[k]]) { // some child is a member: the range
          set.uncreated.emplace_back(m, from);
          c.locksOnly = false; // never-created members wait for no lock
          break;
        }
    }
    // Union-find over "waits for" between the decided members (a
    // never-created one joins its creator's): one deadlock or several.
    auto find = [&](size_t x) {
      while (root[x] != x)
        x = root[x] = root[root[x]];
      return x;
    };
    auto unite = [&](ThreadId a, ThreadId b) {
      if (decided_[b].kind != Position::Member && neverCreated(b))
        b = s_.creatorOf(b);
      root[find(slot(a))] = find(slot(b));
    };
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
          for (ThreadId v : finishersOf(n.lock))
            if (isAbsent(v) && abandons(v, n))
              holders.push_back(v);
      }
      if (!justified && holders.empty())
        return; // cannot happen after the pruning; kept as a guard
      c.finishedHolders.push_back(std::move(holders));
      // A thread at its first event runs only once created.
      EventId f = s_.forkOf(m);
      if (!n.pos.unforked && n.pos.pos == 0 && f != kNone &&
          !isMember(s_.creatorOf(m)))
        c.forksDone.push_back(f);
    }
    for (ThreadId m : members)
      c.connected = c.connected && find(slot(m)) == find(slot(members[0]));
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
  /// Per rank: the first later rank whose thread has another creator.
  std::vector<size_t> runEnd_;
  /// The decided members, in the order decided (never-created ones are
  /// implicit: neverCreated()).
  std::vector<ThreadId> members_;
  std::vector<char> hasUnforked_; ///< per thread: a never-created class
  /// Per thread, (lock, class holding it) sorted: the classes a request
  /// of that lock can wait for (a thread's thousands of joins hold none).
  std::vector<std::vector<std::pair<SymId, const Node *>>> holding_;
  std::map<SymId, std::vector<ThreadId>> finishers_; ///< finishersOf()
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
