//===- analysis/deadlock.h - What "blocked for good" means ----------------===//
//
// The deadlock definition of docs/semantics.md ("Deadlocks"), shared by the
// candidate generator (deadlock_candidates.h), the witness checker
// (checkDeadlockWitness in schedule_checker.h) and the reports: a set D of
// threads, in the state after a prefix schedule, each of which waits at its
// next event for something that no continuation can give it. Each member's
// reason is one BlockReason.
//
#pragma once

#include "racepredict/analysis/trace_index.h"

#include <string>
#include <vector>

namespace racepredict::analysis {

/// Why one thread of a deadlock can never take its next step.
enum class BlockKind : uint8_t {
  Lock,       ///< acq / racq / wait return: the lock is held by a member of
              ///< the set, or by a thread that finished holding it
  Join,       ///< join u: u is a member of the set
  NotCreated, ///< the thread's fork is not done and its creator is a member
  Notify,     ///< wait return: its notify is not done, and nothing can move
  Semaphore,  ///< semwait: count 0, and nothing can move
  Barrier,    ///< barrier departure: arrivals missing, and nothing can move
};

/// Short name ("lock", "join", "not-created", "condition", "semaphore",
/// "barrier"), as the JSON report writes it.
const char *blockKindName(BlockKind k);

struct BlockReason {
  ThreadId thread = kNone;
  EventId event = kNone; ///< the thread's next event (it never completes)
  BlockKind kind = BlockKind::Lock;
  /// The lock, condition, semaphore or barrier (kNone for Join/NotCreated).
  SymId resource = kNone;
  /// Lock: the holder; Join: the joined thread; NotCreated: the creator.
  ThreadId other = kNone;
  /// Lock: the holder's acquisition of the lock; NotCreated: the fork.
  EventId since = kNone;
  bool holderFinished = false; ///< Lock: the holder ended holding the lock
  bool readMode = false;       ///< Lock: the request is a read lock (racq)
  int64_t count = 0;           ///< Semaphore: its count
  uint32_t arrived = 0;        ///< Barrier: threads waiting at it
  uint32_t needed = 0;         ///< Barrier: its count
};

/// A thread is complete when its trace is known to be its whole run: its
/// last event is `end`, or it has no `begin` (a hand-written trace without
/// thread lifecycle events). A recorded thread without `end` was still
/// running when recording stopped and may do more than the trace shows.
bool threadComplete(const TraceIndex &idx, ThreadId t);

/// The event that ends the process: the trace's last event, if it is the
/// `end` of a thread with a `begin` (a recorded program's exit() or return
/// from main). kNone if there is none. No deadlock state has executed it:
/// the process is gone.
EventId processExitEvent(const TraceIndex &idx);

/// A thread may be finished (all events done) in a deadlock state and then
/// never act again: it is complete and does not end the process.
bool canStayFinished(const TraceIndex &idx, ThreadId t);

/// The lock `ev` (acq, racq or wait) acquires.
SymId requestedLock(const trace::Event &ev);

/// Sections (indices into idx.sections()) thread `t` holds after executing
/// its first `pos` events (and the first half of the next one, if
/// `halfDone`): acquired, and not released. `threadSections`, if given,
/// lists the thread's sections (saves scanning all of them).
std::vector<uint32_t>
heldSections(const TraceIndex &idx, ThreadId t, uint32_t pos, bool halfDone,
             const std::vector<uint32_t> *threadSections = nullptr);

/// The members' wait-for cycle, if the reasons contain one: indices into
/// `reasons`, each waiting (lock holder, joined thread, creator) for the
/// next. Empty if there is none.
std::vector<size_t> waitForCycle(const std::vector<BlockReason> &reasons);

/// One word for a deadlock: "lock-order" (a cycle of lock waits),
/// "wait-cycle" (a cycle through joins or thread creation), else the kinds
/// of the waits that nothing can end, joined by '+' ("semaphore",
/// "barrier", "condition", "abandoned-lock").
std::string deadlockKind(const std::vector<BlockReason> &reasons);

} // namespace racepredict::analysis
