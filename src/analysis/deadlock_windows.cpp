//===- analysis/deadlock_windows.cpp - Threads a position can meet -----===//
//
// The ownership search asks, for a class of positions, which threads have
// a class it can be in one cut with (a justifier, or a choice next to a
// member). Scanning every thread made thread churn quadratic: 40,001
// threads, each asking about all the others (issue 17 item 4). A
// creator's children, in fork order, have growing fork clocks, so those
// forked after what a position has executed form a suffix (binary
// search); those that ended before what it needs are, in the shapes that
// churn threads (create, join, create again), a prefix, found by a scan
// that resumes where the scan of an earlier clock of the same thread, or
// of its fork, stopped — clocks only grow along a thread, and a thread's
// clocks contain its fork's. Whatever lies between is checked one by one,
// as before, so the windows only leave out threads every check rejects.
//
#include "deadlock_search.h"

#include <algorithm>
#include <cstdio>

namespace racepredict::analysis::detail {

ForkWindows::ForkWindows(const TraceIndex &idx, const MustHappenBefore &mhb)
    : idx_(idx), mhb_(mhb) {
  size_t nt = idx.numThreads();
  creator_.assign(nt, kNone);
  index_.assign(nt, 0);
  children_.resize(nt);
  const auto &events = idx.trace().events;
  for (ThreadId u = 0; u < nt; ++u) {
    EventId f = idx.forkOf(u);
    if (f == kNone) {
      roots_.push_back(u);
      continue;
    }
    creator_[u] = events[f].thread;
  }
  // Children in fork order: the creator's program order.
  for (ThreadId c = 0; c < nt; ++c)
    for (EventId e : idx.threadEvents(c))
      if (events[e].kind == trace::EventKind::Fork && events[e].obj < nt &&
          idx.forkOf(events[e].obj) == e) {
        index_[events[e].obj] = static_cast<uint32_t>(children_[c].size());
        children_[c].push_back(events[e].obj);
      }
  firstEvents_.resize(nt);
  suffixFirst_.resize(nt);
  inForkOrder_.assign(nt, 1);
  for (ThreadId c = 0; c < nt; ++c) {
    if (children_[c].empty())
      continue;
    creators_.push_back(c);
    auto &fe = firstEvents_[c];
    for (uint32_t k = 0; k < children_[c].size(); ++k)
      if (const auto &te = idx.threadEvents(children_[c][k]); !te.empty())
        fe.emplace_back(te[0], k);
    inForkOrder_[c] = std::is_sorted(fe.begin(), fe.end());
    auto &suf = suffixFirst_[c];
    suf.assign(children_[c].size() + 1, {kNone, kNone});
    for (auto it = fe.rbegin(); it != fe.rend(); ++it)
      suf[it->second] = *it;
    for (size_t k = children_[c].size(); k-- > 0;)
      suf[k] = std::min(suf[k], suf[k + 1]);
    std::sort(fe.begin(), fe.end());
  }
  last_.assign(nt, -1);
  clocks_.resize(nt);
  for (ThreadId u = 0; u < nt; ++u)
    if (EventId f = idx.forkOf(u); f != kNone)
      addClock(f);
}

uint32_t ForkWindows::firstForkAfter(ThreadId c, uint32_t pos) const {
  const auto &ch = children_[c];
  return static_cast<uint32_t>(
      std::partition_point(
          ch.begin(), ch.end(),
          [&](ThreadId u) { return idx_.posInThread(idx_.forkOf(u)) <= pos; }) -
      ch.begin());
}

uint32_t ForkWindows::forkedAfter(ThreadId c, ThreadId t, uint32_t pos) const {
  const auto &ch = children_[c];
  return static_cast<uint32_t>(
      std::partition_point(
          ch.begin(), ch.end(),
          [&](ThreadId u) { return mhb_.entry(idx_.forkOf(u), t) <= pos; }) -
      ch.begin());
}

bool ForkWindows::endedBy(EventId clock, ThreadId u) const {
  return last_[u] < 0 || mhb_.entry(clock, u) > last_[u];
}

void ForkWindows::addClock(EventId clock) {
  clocks_[idx_.trace().events[clock].thread].push_back(idx_.posInThread(clock));
}

// One table per (thread, creator), built on first need over the thread's
// clocks in increasing order, each scan resuming where the last stopped
// and the first where the thread's fork's stopped: the creator's clock at
// the fork is in every clock of the thread. Linear in the thread's clocks
// and the creator's children, however the search orders its questions.
const std::vector<std::pair<uint32_t, uint32_t>> &
ForkWindows::endedTable(ThreadId t, ThreadId c) {
  auto [it, fresh] = ended_.try_emplace({t, c});
  if (!fresh)
    return it->second;
  auto &at = clocks_[t];
  std::sort(at.begin(), at.end());
  at.erase(std::unique(at.begin(), at.end()), at.end());
  uint32_t k = 0;
  if (EventId f = idx_.forkOf(t); f != kNone)
    k = endedBefore(c, f);
  const auto &ch = children_[c];
  const auto &te = idx_.threadEvents(t);
  std::vector<std::pair<uint32_t, uint32_t>> table;
  table.reserve(at.size());
  for (uint32_t q : at) {
    while (k < ch.size() && endedBy(te[q], ch[k]))
      ++k;
    table.emplace_back(q, k);
  }
  return it->second = std::move(table);
}

uint32_t ForkWindows::endedBefore(ThreadId c, EventId clock) {
  ThreadId t = idx_.trace().events[clock].thread;
  uint32_t q = idx_.posInThread(clock);
  const auto &table = endedTable(t, c);
  auto it =
      std::upper_bound(table.begin(), table.end(), q,
                       [](uint32_t x, const std::pair<uint32_t, uint32_t> &e) {
                         return x < e.first;
                       });
  uint32_t k = 0;
  if (it != table.begin()) {
    --it;
    if (it->first == q)
      return it->second;
    k = it->second;
  } else if (EventId f = idx_.forkOf(t); f != kNone) {
    k = endedBefore(c, f);
  }
  // A clock not announced by addClock: resume from the last one before.
  const auto &ch = children_[c];
  while (k < ch.size() && endedBy(clock, ch[k]))
    ++k;
  return k;
}

} // namespace racepredict::analysis::detail
