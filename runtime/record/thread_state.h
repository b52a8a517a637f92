//===- record/thread_state.h - Recorder state: threads and globals -------===//
//
// What the recorder keeps per thread (ThreadState: its event buffer, call
// stack, token bookkeeping; thread_state.cpp gives it out and takes it
// back) and for the process (Globals), with the spin locks and the pending
// acquires the hooks share. The recording token and the encoding helpers
// that work on this state are in state.h.
//
#pragma once

#include "racepredict/trace/format.h"

#include "../common/options.h"
#include "../common/varint.h"
#include "../replay/replay.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define RP_TLS __attribute__((tls_model("initial-exec"))) __thread
#define RP_LIKELY(x) __builtin_expect(!!(x), 1)
#define RP_UNLIKELY(x) __builtin_expect(!!(x), 0)

namespace racepredict::rt {

/// Call-stack frames kept per thread; deeper frames are counted, not shown.
inline constexpr uint32_t kMaxFrames = 64;
/// Worst-case size of one record: a branch with 8 dependences (kind + 11
/// varints of 10 bytes; everything else is below 64), plus the stack record
/// that may precede it (kind + 2 varints + kMaxFrames call sites of 5 bytes)
/// and the segment record written when the token is acquired (11 bytes).
inline constexpr uint32_t kMaxRecord = 128 + 24 + kMaxFrames * 5 + 16;

/// inHook values: outside the recorder, inside a hook (possibly writing
/// records), waiting for the token inside a hook (nothing half-written: the
/// exit flusher and a token stealer need not wait for it).
enum : uint32_t { kOutside = 0, kInHook = 1, kWaitingForToken = 2 };

struct ThreadState {
  uint8_t *buf;      ///< records of the current block (without its header)
  uint32_t cap;      ///< bytes in buf
  uint32_t len;      ///< committed bytes
  uint64_t firstSeq; ///< seq the block's records start from (header field)
  /// The seq of this thread's next event while it holds the token; while
  /// it does not, the seq its next event would have had (a segment record
  /// covers the difference when it acquires the token again).
  uint64_t nextSeq;
  uint32_t count; ///< committed records in the block
  /// len | count << 32, published together so that the exit flusher never
  /// pairs a byte length with the record count of another moment.
  uint64_t published;
  /// Records written but not yet committed (a stack record before its event).
  uint32_t pending;
  uint64_t prevLoc; ///< location key of the block's previous record (v2 delta)
  uint32_t key;     ///< thread key: 0 = main, then creation ordinals
  /// kInHook while the thread is inside a recording hook; the exit flusher
  /// waits for it to change so it never copies a half-written buffer, and a
  /// token stealer so that two threads never record at once.
  volatile uint32_t inHook;
  /// Events left in this thread's turn with the token (token.cpp). Written
  /// by a waiter too (1: the turn is over, tokenAcquireSlow hands it on),
  /// hence relaxed atomics on both sides.
  uint32_t quantum;
  /// The token was handed to this thread before it queued for it (a new
  /// thread, at its creation: tokenHandTo); its first acquisition is done
  /// in tokenAcquireSlow.
  bool granted;
  /// In its start turn: handed the token at its creation for
  /// start_turn_events hook calls (thread_hooks.cpp), not a whole quantum,
  /// and more while it holds a lock (token.cpp). Cleared when it lets go.
  bool startTurn;
  uint32_t startTurnExtra; ///< hook calls the start turn was extended by
  /// Locks this thread holds, as recorded: acquires (read ones too) less
  /// releases (trace_writer.cpp recordSimple).
  uint32_t locksHeld;
  /// The categories the hooks' fast path may record (access_hooks.cpp
  /// enterFast): events=, none once the thread ended or in replay mode or
  /// with the fenced token.
  uint32_t fastMask;
  /// A read (or failed trylock) was recorded since the last branch; a branch
  /// with none adds no constraint under the plain rule and is dropped.
  bool readsSinceBranch;
  bool ended;
  /// Seq of the last recorded plain branch (0: none) and the sorted
  /// dependences of the last recorded precise one: branches they cover are
  /// not recorded (access_hooks.cpp branchCovered).
  uint64_t plainSeq;
  uint64_t prevDeps[8];
  uint32_t prevDepCount;
  uint64_t events; ///< event records written by this thread
  /// Shadow call stack (func_enter/func_exit): the call site of each frame.
  /// depth may exceed kMaxFrames (deep recursion); only the outermost
  /// kMaxFrames frames are kept. The trace knows the stack as traceDepth
  /// frames whose first `synced` equal frames[0..synced).
  uint32_t frames[kMaxFrames];
  uint32_t depth;
  uint32_t synced;
  uint32_t traceDepth;
  ThreadState *next;     ///< all states (g.threads), never unlinked
  ThreadState *nextFree; ///< retired states (g.freeStates, thread_state.cpp)
  // The token's wait queue (token.cpp): the futex word a waiter sleeps on
  // (1 = the token was handed to it), the next waiter, the kernel thread id
  // (a stealer looks whether the holder is running).
  uint32_t tokenWord;
  ThreadState *tokenNext;
  int tid;
  // Replay mode (docs/replay.md): the schedule thread this thread is
  // (slot + 1, 0 = none), its next event's ordinal (alloc/free excluded)
  // and how many threads it has created (its children's creation paths).
  uint32_t replaySlot;
  uint32_t ordinal;
  uint32_t children;
  /// What this thread is blocked in, for the watchdog's observed deadlocks
  /// (recording_watchdog.cpp): odd blockSeq while it is inside a call that can
  /// block for good (an untimed lock, join, wait...), with the event
  /// `blockedKind` the call records, its object and location. Written before
  /// blockSeq is made odd; the watchdog reads blockSeq, the fields, blockSeq
  /// again.
  uint32_t blockSeq;
  uint32_t blockedKind;
  uint64_t blockedObj;
  uint32_t blockedLoc;
  /// The lock this thread waits for in a real blocking call, or owns
  /// without having recorded it yet (sync_hooks.cpp ownedUnrecorded); 0:
  /// none.
  uint64_t acquiring;
  /// A condition wait's release half, for a wait that has not returned when
  /// recording stops (cond_hooks.cpp): its `rel` record, written by the
  /// exit flusher at seq waitRelSeq, which the waiter reserved when it
  /// released the mutex. Without it the trace would show the mutex held by
  /// the waiter for good (the `wait` event, at the return, implies the
  /// release). waitRelLen = 0: none pending; the `wait` record clears it.
  uint8_t waitRel[24];
  uint32_t waitRelLen;
  uint64_t waitRelSeq;
};

struct Globals {
  Options opts;
  bool initialized;
  int fd;
  uint32_t srcCount;          ///< source ids handed out to modules
  ThreadState *threads;       ///< all thread states (push-only list)
  ThreadState *freeStates;    ///< ended ones, for new threads to reuse
  volatile uint32_t freeLock; ///< guards freeStates
  /// Threads created (pthread_create returned) that have not started yet.
  uint32_t starting;
  uint32_t nextThreadKey;
  /// Set first at exit: the one thread that writes the trace (finishTrace).
  volatile uint32_t finishing;
  /// Set once no thread has a fast path: no further recording (stopped()).
  volatile uint32_t stopping;
  volatile uint32_t fileLock;
  volatile uint32_t initLock;
  volatile uint32_t srcLock;
  uint64_t bytesWritten; ///< trace bytes so far (under fileLock)
  uint64_t startNs;      ///< CLOCK_MONOTONIC at start-up (max_seconds)
  int pid;               ///< the process recording (not a vfork child)
  bool finished;         ///< the trace is written (END), the fd closed
  int finisherTid;       ///< the thread writing it (finishTrace)
  int fatalSignal;       ///< the fatal signal being handled, 0: none
  char traceName[512];
};

extern Globals g;
/// This thread's state; null before it is attached and after it ended.
extern RP_TLS ThreadState *tlsState;
/// This thread has ended (threadEnd): it is never attached again.
extern RP_TLS bool tlsEnded;
} // namespace racepredict::rt
/// Seq of this thread's latest load hook's record, 0 if it was not
/// recorded: read by instrumented code for branch_deps (runtime.h).
extern "C" RP_TLS uint64_t __racepredict_read_seq;
namespace racepredict::rt {

/// CLOCK_MONOTONIC in nanoseconds (defined with the replay's turnstile).
uint64_t nowNs();

// --- spin locks (futex-free: held for a handful of instructions) ---------
void spinSlow(volatile uint32_t *l);
inline void spinLock(volatile uint32_t *l) {
  if (RP_UNLIKELY(__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE)))
    spinSlow(l);
}
inline void spinUnlock(volatile uint32_t *l) {
  __atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

/// Threads that own a lock object (mutex, rwlock, spin lock) in reality
/// but have not recorded the acquisition yet, counted per stripe of lock
/// addresses: a try-lock that fails while such a thread exists would be
/// recorded where the trace shows the lock free, so it retries once that
/// thread has recorded (sync_hooks.cpp).
inline constexpr unsigned kPendingBits = 12;
extern uint32_t gPendingAcquires[1u << kPendingBits];
inline uint32_t *pendingFor(uintptr_t obj) {
  return &gPendingAcquires[static_cast<uint32_t>(obj >> 3) &
                           ((1u << kPendingBits) - 1)];
}
/// Locks `m` as pthread_mutex_lock's hook does (sync_hooks.cpp) and
/// records the event `kind` with operands `ops` for it: the return half of
/// a condition wait, a timed one with its deadline `dl` (deadline.h).
struct Deadline;
int lockRecorded(pthread_mutex_t *m, unsigned kind, uint32_t loc,
                 const uint64_t *ops, int n, const Deadline *dl);

} // namespace racepredict::rt
