//===- analysis/deadlock_ownership_dfs.cpp - Deciding thread by thread ---===//
//
// The ownership search's depth-first part (ownership_search.h): each
// thread in turn is "not a member" or one of its classes, a branch is cut
// as soon as a member can no longer be justified by the threads still
// undecided, and runs of threads whose decision is forced (never created,
// or with no class that can meet the members: ForkWindows) are jumped
// over, so that thread churn costs the threads with a choice, not all.
//
#include "ownership_search.h"

#include <algorithm>

namespace racepredict::analysis::detail {

const std::vector<std::pair<ThreadId, const Node *>> &
OwnershipSearch::justifiers(const Node &n) {
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

bool OwnershipSearch::justifiable(const Node &n, size_t upTo) {
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

bool OwnershipSearch::feasibleSoFar(size_t upTo) {
  for (ThreadId u : active_)
    if (!justifiable(*chosen_[u], upTo))
      return false;
  return true;
}

size_t OwnershipSearch::forcedUpTo(ThreadId u) {
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

size_t OwnershipSearch::skipForced(size_t i) {
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

void OwnershipSearch::dfs(size_t i) {
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

} // namespace racepredict::analysis::detail
