//===- analysis/deadlock_search.h - Shared state of the candidate searches ===//
//
// Internal to deadlock_candidates.cpp (ownership sets) and
// hang_candidates.cpp (hangs): per-thread positions, the locks held there,
// must-happen-before consistency of two positions, and the candidate store.
//
#pragma once

#include "racepredict/analysis/deadlock.h"
#include "racepredict/analysis/deadlock_candidates.h"

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

  /// Counts one search step; false once the budget is spent.
  bool step();
  bool stopped() const { return stats->truncated; }
  /// Adds (or merges) a candidate; false once the limit is reached.
  bool emit(DeadlockCandidate c);
  std::vector<DeadlockCandidate> take();

private:
  std::vector<Position> finished_;
  std::vector<char> canFinish_;
  std::vector<std::vector<uint32_t>> finalHolds_;
  std::vector<std::vector<uint32_t>> threadSections_;
  /// Held sections per member position, kept alive for Position::holds.
  std::map<std::pair<EventId, bool>, std::vector<uint32_t>> holdsAt_;
  std::map<std::vector<DeadlockMember>, size_t> index_;
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
};

/// The ownership search (deadlock_candidates.cpp).
void searchOwnershipSets(DeadlockSearch &s);
/// The hang search (hang_candidates.cpp).
void searchHangs(DeadlockSearch &s);

/// Events a thread can wait at for good under some rule: acq, racq,
/// wait, join, semwait, barrier.
bool mayBlock(trace::EventKind k);

} // namespace racepredict::analysis::detail
