//===- analysis/deadlock_candidates.h - Candidate deadlock states ---------===//
//
// A candidate names, for a set D of threads, the event each is blocked at
// (docs/semantics.md, "Deadlocks"). Whether a member is blocked for good
// depends only on the threads' positions, so every rule is decided here,
// statically, except what needs the solver: that the positions form a
// feasible cut, and that the threads a rule needs finished (the holder of
// an abandoned lock; every non-member, for the rules no member can break:
// semaphore, barrier, notify) can be finished in it. Two searches:
//
//  * ownership sets: every member waits for a lock a member holds, joins a
//    member, or was never created by a member (Carril 2017 §4.3's cycles of
//    held/requested locks, generalised to joins and thread creation), or
//    waits for a lock a finished thread never released. Other threads may
//    be anywhere.
//  * hangs: every thread outside D has finished, so the cut is fully
//    determined and semaphore counts, barrier arrivals and notifies are
//    known: D waits for a post, an arrival or a notify nobody is left to do.
//
#pragma once

#include "racepredict/analysis/mhb.h"
#include "racepredict/analysis/trace_index.h"

#include <memory>
#include <vector>

namespace racepredict::analysis {

struct DeadlockMember {
  EventId event; ///< the thread's next event
  /// The thread was never created (its creator is a member, blocked before
  /// the fork): nothing of it has run. Otherwise the thread runs up to
  /// `event` (and, for a wait or barrier, its first half).
  bool unforked = false;
  bool operator<(const DeadlockMember &o) const {
    return event != o.event ? event < o.event : unforked < o.unforked;
  }
  bool operator==(const DeadlockMember &o) const {
    return event == o.event && unforked == o.unforked;
  }
};

struct DeadlockCandidate {
  std::vector<DeadlockMember> members; ///< sorted by event
  /// Ownership rules justify every member, given: each fork of
  /// `forksDone` has run, and for each member with a non-empty
  /// `finishedHolders` entry, one of those threads has finished.
  bool ownership = false;
  std::vector<std::vector<ThreadId>> finishedHolders; ///< parallel to members
  std::vector<EventId> forksDone;
  /// With every non-member finished, the rules justify every member.
  bool hang = false;
  /// One deadlock, not several side by side: the members' waits connect.
  bool connected = true;
  /// Every member waits for a lock (a classic lock-order candidate).
  bool locksOnly = false;
  /// Members' source locations (without debug info: thread, operation and
  /// object): one finding per group in the default report.
  uint32_t group = 0;
};

struct DeadlockCandidateOptions {
  /// Prune cuts the solver would reject anyway: positions that contradict
  /// must-happen-before, two members holding one lock. Accelerators only.
  bool filters = true;
  /// Only what the default report can show: candidates whose members'
  /// waits connect, each with every thread that a member blocks before
  /// creating it among its members (a subset of those never-created threads
  /// is the same cut: the report keeps the largest set; with a thousand
  /// threads created after a blocked join, the subsets are 2^1000).
  bool defaultReport = false;
  size_t maxCandidates = 100000; ///< 0 = no limit
  size_t maxSearchSteps = 20000000;
  /// Default report: ownership sets kept per group (0 = all). The report
  /// takes a group's sets in order and stops at its first deadlock, so
  /// only the first few are kept; the others are found again by a new
  /// search, twice as many each time, if ever needed (deadlock_stream.cpp).
  /// Churn by several creators finds 10^6 sets in ~10^2 groups.
  size_t setsPerGroup = 8;
};

struct DeadlockCandidateStats {
  size_t blockingEvents = 0; ///< acq, racq, wait, join, semwait, barrier
  /// Candidates produced (a stream left early counts only those taken).
  size_t ownership = 0;  ///< ownership candidates
  size_t hangs = 0;      ///< hang candidates
  size_t lockCycles = 0; ///< candidates where every member waits a lock
  /// Solutions of the ownership search over classes of positions (the
  /// abstract lock graph's cycles, joins and creations), each standing for
  /// its concrete instances.
  size_t ownershipSets = 0;
  size_t searchSteps = 0;
  /// Comparisons of two candidates' members that kept the stream sorted.
  size_t orderComparisons = 0;
  bool truncated = false; ///< a limit was reached: candidates may be missing
};

namespace detail {
struct CandidateStreamState;
}

/// The candidates (ownership sets and hangs) in the order of their members,
/// merged when both searches produce the same members, built one at a time:
/// the ownership search runs on classes of positions up front, and each
/// class set's concrete instances are enumerated only when taken, so a
/// group left by skipGroup() costs nothing more.
class DeadlockCandidateStream {
public:
  DeadlockCandidateStream(const TraceIndex &idx, const MustHappenBefore &mhb,
                          const DeadlockCandidateOptions &opts,
                          DeadlockCandidateStats *stats);
  ~DeadlockCandidateStream();
  /// The next candidate; false when none is left or a limit was reached.
  bool next(DeadlockCandidate &out);
  /// No further candidate of this group is wanted.
  void skipGroup(uint32_t group);

private:
  std::unique_ptr<detail::CandidateStreamState> st_;
};

/// Every candidate of the stream.
std::vector<DeadlockCandidate>
findDeadlockCandidates(const TraceIndex &idx, const MustHappenBefore &mhb,
                       const DeadlockCandidateOptions &opts,
                       DeadlockCandidateStats *stats);

} // namespace racepredict::analysis
