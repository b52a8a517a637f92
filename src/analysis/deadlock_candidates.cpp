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
// combinations. The search itself is deadlock_ownership_dfs.cpp.
//
#include "ownership_search.h"

#include <algorithm>
#include <exception>
#include <numeric>
#include <system_error>

#include <pthread.h>

namespace racepredict::analysis::detail {

void OwnershipSearch::run() {
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

void OwnershipSearch::collect() {
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
      // Not a try-acquire: it never waits (mayBlock).
      EventKind k = events[e].kind;
      if ((k == EventKind::Acquire || k == EventKind::RAcquire ||
           k == EventKind::Wait || k == EventKind::Join) &&
          !trace::isTryAcquire(events[e]))
        add(e, false);
    }
  }
}

Node OwnershipSearch::make(EventId e, bool unforked) {
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

void OwnershipSearch::prune() {
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

void OwnershipSearch::index() {
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

bool OwnershipSearch::possible(const Node &n) const {
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

void OwnershipSearch::leaf() {
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
  out_.sink(std::move(set));
}

std::deque<std::vector<Position>>
searchOwnershipSets(DeadlockSearch &s,
                    std::function<void(OwnershipSet &&)> sink) {
  OwnershipSets out;
  out.sink = std::move(sink);
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
  return std::move(out.classes);
}

} // namespace racepredict::analysis::detail
