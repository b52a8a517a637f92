//===- analysis/ownership_search.h - The ownership deadlock search ------===//
//
// Internal to deadlock_candidates.cpp (the classes of blocking positions
// and the sets a solution gives) and deadlock_ownership_dfs.cpp (the
// depth-first search over the threads): the search's nodes and state.
//
#pragma once

#include "deadlock_search.h"

#include <map>
#include <tuple>
#include <vector>

namespace racepredict::analysis::detail {

using trace::Event;
using trace::EventKind;

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

  void run();

private:
  bool lockKind(const Node &n) const {
    return !n.pos.unforked &&
           (n.kind == EventKind::Acquire || n.kind == EventKind::RAcquire ||
            n.kind == EventKind::Wait);
  }

  void collect();
  Node make(EventId e, bool unforked);
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
  void prune();
  /// After the pruning: each thread's last class position (the windows),
  /// whether it has a never-created class, and per lock the threads that
  /// can finish holding it (the only ones that can abandon it).
  void index();
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

  bool possible(const Node &n) const;
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
  justifiers(const Node &n);
  /// Can member `n` still be justified, given the threads decided so far
  /// (order_[0 .. upTo]) and those still open?
  bool justifiable(const Node &n, size_t upTo);
  bool feasibleSoFar(size_t upTo);
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
  size_t forcedUpTo(ThreadId u);
  /// The first rank from i on with a choice.
  size_t skipForced(size_t i);
  /// Decides thread order_[i] and the rest.
  void dfs(size_t i);
  /// A solution: the decided members, ascending, and the never-created
  /// ones as ranges of their creators' children — O(members), not
  /// O(threads), per solution.
  void leaf();
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

} // namespace racepredict::analysis::detail
