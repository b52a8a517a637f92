//===- analysis/deadlock_search.h - Shared state of the candidate searches ===//
//
// Internal to deadlock_candidates.cpp (ownership sets) and
// hang_candidates.cpp (hangs): per-thread positions, the locks held there,
// must-happen-before consistency of two positions, and the candidate store.
//
#pragma once

#include "racepredict/analysis/deadlock.h"
#include "racepredict/analysis/deadlock_candidates.h"

#include <deque>
#include <functional>
#include <map>

namespace racepredict::analysis::detail {

/// A possible position of a thread in a candidate cut.
struct Position {
  enum Kind : uint8_t { Undecided, Absent, Finished, Member } kind = Undecided;
  EventId event = kNone; ///< Member: the blocked event
  uint32_t pos = 0;      ///< events of the thread executed
  bool half = false;     ///< Member at a wait/barrier: first half done
  bool unforked = false; ///< Member: never created
  /// The event whose must-happen-before past is what the thread executed
  /// (its last executed event, or its fork when it executed nothing but
  /// exists), or kNone.
  EventId clockOf = kNone;
  const std::vector<uint32_t> *holds = nullptr; ///< sections held
};

/// Which threads a class of positions can meet in one cut, by creator
/// (deadlock_windows.cpp): a creator's children in fork order, the suffix
/// forked after a position, the prefix that ended before one.
class ForkWindows {
public:
  ForkWindows(const TraceIndex &idx, const MustHappenBefore &mhb);
  /// Per thread, the last position any of its classes takes (-1: none).
  void setLastPositions(std::vector<int64_t> last) { last_ = std::move(last); }
  /// The thread's creator (kNone: never forked) and place among its
  /// children.
  ThreadId creator(ThreadId u) const { return creator_[u]; }
  uint32_t index(ThreadId u) const { return index_[u]; }
  const std::vector<ThreadId> &children(ThreadId c) const {
    return children_[c];
  }
  const std::vector<ThreadId> &creators() const { return creators_; }
  const std::vector<ThreadId> &roots() const { return roots_; }
  /// The first child of `c` forked after `c` executed `pos` events.
  uint32_t firstForkAfter(ThreadId c, uint32_t pos) const;
  /// The first child of `c` whose fork needs more than `pos` events of
  /// thread `t`: it and the later ones have no position a class of `t`
  /// ending at `pos` can meet.
  uint32_t forkedAfter(ThreadId c, ThreadId t, uint32_t pos) const;
  /// The first child of `c` from which on not every child is ended by
  /// `clock`: each before it has every position of its classes in the
  /// must-happen-before past of `clock`.
  uint32_t endedBefore(ThreadId c, EventId clock);
  /// Announces a clock endedBefore will be asked about (before asking):
  /// those of each thread are answered in one scan.
  void addClock(EventId clock);
  /// `c`'s children that have an event: (first event, child index),
  /// sorted by event; and whether that is also the fork order.
  const std::vector<std::pair<EventId, uint32_t>> &
  firstEvents(ThreadId c) const {
    return firstEvents_[c];
  }
  bool startInForkOrder(ThreadId c) const { return inForkOrder_[c] != 0; }
  /// Per child index k of `c`: the least (first event, child index) of
  /// the children from k on that have an event, or (kNone, kNone).
  const std::vector<std::pair<EventId, uint32_t>> &
  suffixFirst(ThreadId c) const {
    return suffixFirst_[c];
  }

private:
  bool endedBy(EventId clock, ThreadId u) const;
  const std::vector<std::pair<uint32_t, uint32_t>> &endedTable(ThreadId t,
                                                               ThreadId c);
  const TraceIndex &idx_;
  const MustHappenBefore &mhb_;
  std::vector<ThreadId> creator_, creators_, roots_;
  std::vector<uint32_t> index_;
  std::vector<std::vector<ThreadId>> children_;
  std::vector<std::vector<std::pair<EventId, uint32_t>>> firstEvents_,
      suffixFirst_;
  std::vector<char> inForkOrder_;
  std::vector<int64_t> last_;
  /// Per thread, the positions of its announced clocks and forks.
  std::vector<std::vector<uint32_t>> clocks_;
  /// Per (clock's thread, creator): (clock position, endedBefore), by
  /// position.
  std::map<std::pair<ThreadId, ThreadId>,
           std::vector<std::pair<uint32_t, uint32_t>>>
      ended_;
};

class DeadlockSearch {
public:
  DeadlockSearch(const TraceIndex &idx, const MustHappenBefore &mhb,
                 const DeadlockCandidateOptions &opts,
                 DeadlockCandidateStats *stats);

  const TraceIndex &idx;
  const trace::Trace &t;
  const MustHappenBefore &mhb;
  const DeadlockCandidateOptions &opts;
  DeadlockCandidateStats *stats;
  size_t nt;
  ForkWindows windows;

  /// A member position at `e` (or never created, at its thread's first).
  Position member(EventId e, bool unforked);
  /// The thread having run all its events.
  const Position &finished(ThreadId u) const { return finished_[u]; }
  bool canFinish(ThreadId u) const { return canFinish_[u] != 0; }

  /// Two decided positions of different threads can be in one cut: neither
  /// needs an event the other has not executed (MHB), and they do not hold
  /// one lock in conflicting modes. Always true without filters.
  bool consistent(ThreadId a, const Position &pa, ThreadId b,
                  const Position &pb) const;
  /// The must-happen-before half of consistent(), for decided positions.
  bool ordered(ThreadId a, const Position &pa, ThreadId b,
               const Position &pb) const;
  /// The lock half: no lock held by both in conflicting modes. Depends on
  /// the held locks only, so the ownership search checks it on classes.
  bool locksCompatible(const Position &pa, const Position &pb) const;
  /// `holds` contains a section of `lock` that excludes a request (any
  /// section for a write request, a write section for a read request).
  bool excludes(const std::vector<uint32_t> &holds, SymId lock,
                bool readRequest) const;
  /// The thread's forking event and the creator (kNone if not forked).
  EventId forkOf(ThreadId u) const { return idx.forkOf(u); }
  ThreadId creatorOf(ThreadId u) const {
    EventId f = idx.forkOf(u);
    return f == kNone ? kNone : t.events[f].thread;
  }

  /// Semaphores: the net count change (seminit values and posts minus
  /// waits) of `u`'s first `pos` events on `sem`, and its waits / its
  /// seminits and posts alone.
  int64_t semNet(ThreadId u, SymId sem, uint32_t pos) const;
  int64_t semWaits(ThreadId u, SymId sem, uint32_t pos) const;
  int64_t semPosts(ThreadId u, SymId sem, uint32_t pos) const;
  const std::vector<SymId> &semaphores() const { return sems_; }
  /// A necessary condition on the members' positions (a filter): no
  /// semaphore can have served more waits than it could have been posted,
  /// counting every post of the threads whose position is open
  /// (`open[u]`: not a member; for a hang, non-members have finished and
  /// their waits count too).
  bool semaphoresCanServe(const std::vector<Position> &pos, bool hang) const;
  /// Per thread, Absent: room for one cut's positions (InstanceCursor
  /// sets its members, asks semaphoresCanServe and puts them back).
  std::vector<Position> &scratch() { return scratch_; }

  /// Counts one search step; false once the budget is spent.
  bool step();
  bool stopped() const { return stopped_; }
  /// After an ownership search that spent its budget (default report):
  /// the hang search and the instances of the sets found get a budget of
  /// their own, so that a search stopped at its limit still has the
  /// deadlocks among what it found decided. The stats stay truncated.
  void resumeAfterBudget();
  /// Runs `f` (the ownership search again, for the sets after the groups'
  /// sentinels: deadlock_stream.cpp) on a budget of its own, as the first
  /// search had: its steps count in the stats but leave the budget of
  /// what follows as it was.
  template <typename F> void withOwnBudget(F f) {
    bool stopped = stopped_;
    size_t from = budgetFrom_, before = stats->searchSteps;
    resumeAfterBudget();
    f();
    stopped_ = stopped;
    budgetFrom_ = from + (stats->searchSteps - before);
  }
  /// Adds a hang candidate (each member set once); false once the limit is
  /// reached.
  bool emit(DeadlockCandidate c);
  std::vector<DeadlockCandidate> take();

private:
  std::vector<Position> finished_;
  std::vector<char> canFinish_;
  std::vector<std::vector<uint32_t>> finalHolds_;
  std::vector<std::vector<uint32_t>> threadSections_;
  /// Held sections per member position, kept alive for Position::holds.
  std::map<std::pair<EventId, bool>, std::vector<uint32_t>> holdsAt_;
  /// Per thread, per semaphore: (position after the event, waits so far,
  /// seminit values and posts so far) for each of its events on it.
  struct SemStep {
    uint32_t pos;
    int64_t waits, posts;
  };
  std::vector<std::map<SymId, std::vector<SemStep>>> semSteps_;
  std::vector<SymId> sems_;
  const SemStep *semAt(ThreadId u, SymId sem, uint32_t pos) const;
  std::vector<DeadlockCandidate> out_;
  std::vector<Position> scratch_;
  bool stopped_ = false;
  size_t budgetFrom_ = 0; ///< stats->searchSteps when the budget started
};

/// One solution of the ownership search, over classes of positions: a
/// thread's blocking positions that every ownership rule treats alike (same
/// operation, object and source line, same locks held in the same modes,
/// same forks done, at the thread's first event or not) form one class, so
/// the search runs on the abstract lock graph (GoodLock's: a loop's
/// thousand acquisitions of one lock under another are one node) and the
/// concrete instances are enumerated afterwards, lazily (InstanceCursor).
struct OwnershipSet {
  std::vector<ThreadId> threads; ///< the members, ascending
  /// Per member: its class, the concrete positions sorted by event.
  std::vector<const std::vector<Position> *> classes;
  /// What every instance shares: per member (in `threads` order) unforked
  /// and finishedHolders, and forksDone, connected, locksOnly; the
  /// members' events are the instance's.
  DeadlockCandidate shape;
  /// The default report's never-created members, kept implicit (a blocked
  /// join in a churn trace leaves tens of thousands of threads uncreated
  /// in each of tens of thousands of sets): per (creator, first child),
  /// every child of the creator (a member, blocked before those forks)
  /// from that one on that has an event; each is a member at its first
  /// event, unforked, with no finished holders.
  std::vector<std::pair<ThreadId, uint32_t>> uncreated;
};

struct OwnershipSets {
  std::deque<std::vector<Position>> classes; ///< stable storage
  /// Takes each solution, in the search's (deterministic) order.
  std::function<void(OwnershipSet &&)> sink;
};

/// The ownership search (deadlock_candidates.cpp): the solutions go to
/// `sink`, their classes are returned.
std::deque<std::vector<Position>>
searchOwnershipSets(DeadlockSearch &s,
                    std::function<void(OwnershipSet &&)> sink);

/// The concrete instances of one ownership set in the order of their
/// members sorted by event — the order of the whole candidate list — each
/// consistent with must-happen-before and the semaphore counts
/// (deadlock_instances.cpp).
class InstanceCursor {
public:
  InstanceCursor(DeadlockSearch &s, const OwnershipSet &set);
  /// Moves to the next instance; false when none is left or the search
  /// budget is spent.
  bool next();
  /// The current instance's decided members (no never-created one).
  const DeadlockCandidate &current() const { return cur_; }
  /// The current instance with the never-created members merged in.
  DeadlockCandidate candidate() const;
  /// Compares the current instance's members, never-created ones
  /// included, with `o`'s or with `members` (as vectors compare).
  int compare(const InstanceCursor &o) const;
  int compare(const std::vector<DeadlockMember> &members) const;
  const OwnershipSet &set() const { return *set_; }

private:
  enum class Fit { Ok, Early, Late };
  Fit fit(size_t i, const Position &p, size_t depth) const;
  uint32_t firstFit(size_t i, uint32_t from, EventId after, size_t depth) const;
  bool accept();
  /// Searched member i: its class and thread.
  const std::vector<Position> &classOf(size_t i) const {
    return *set_->classes[vars_[i]];
  }
  ThreadId threadOf(size_t i) const { return set_->threads[vars_[i]]; }
  DeadlockSearch *s_;
  const OwnershipSet *set_;
  /// Members (indices into the set) searched, and those never created,
  /// placed as they are (by event).
  std::vector<size_t> vars_, fixed_;
  size_t k_; ///< vars_.size()
  /// ptr_[d][i]: the next position of searched member i's class to try at
  /// depth d (depth d picks the d-th smallest event of the searched).
  std::vector<std::vector<uint32_t>> ptr_;
  std::vector<size_t> pick_;   ///< searched member picked at each depth
  std::vector<char> assigned_; ///< per searched member
  bool started_ = false;
  DeadlockCandidate cur_;
};
/// Compares the member sequences `a` of set `sa` and `b` of `sb` (decided
/// members; each set's never-created ones merged in) as vectors compare
/// (deadlock_instances.cpp).
int compareMembers(const DeadlockSearch &s,
                   const std::vector<DeadlockMember> &a, const OwnershipSet &sa,
                   const std::vector<DeadlockMember> &b,
                   const OwnershipSet &sb);
/// The decided members of `set` each at its class's first position: no
/// instance of the set comes before it (each member's event is at least
/// its class's first, so the sorted sequences are too, element by
/// element), and it has the instances' operations and source lines.
std::vector<DeadlockMember> firstInstanceBound(const OwnershipSet &set);

/// The hang search (hang_candidates.cpp).
void searchHangs(DeadlockSearch &s);

/// Events a thread can wait at for good under some rule: acq, racq,
/// wait, join, semwait, barrier; not a try-acquire (trace::isTryAcquire).
bool mayBlock(const trace::Event &e);

} // namespace racepredict::analysis::detail
