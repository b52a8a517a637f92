//===- record/state.h - Recorder state: threads, the token, encoding ------===//
//
// The recorder's consistency protocol (docs/recording.md, format v4): a
// thread records only while it holds the *recording token* (token.cpp), so
// recorded events happen one at a time and the order in which they are
// recorded is the observed order: each event takes the next number of one
// global sequence. The holder keeps the token across events (no atomic
// instruction per event) until it blocks, its quantum ends with another
// thread waiting, or a waiter takes the token from a holder that has left
// the recorder for a long time (asymmetric Dekker with membarrier).
// Events are varint-encoded straight into a per-thread buffer (format.h).
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
  volatile uint32_t stopping; ///< set at exit: no further recording
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

// --- the recording token (token.cpp) ---------------------------------------
/// The thread that may record now (null: nobody), alone on its cache line:
/// every hook reads it, only a change of holder writes it.
struct alignas(64) TokenHolder {
  ThreadState *owner;
};
extern TokenHolder gToken;
/// membarrier(2) is unavailable: the hooks fence after raising inHook so
/// that a stealer's plain check of it is enough (see tokenSteal).
extern bool gTokenFence;
/// Events a holder records before it hands the token to a waiter.
inline constexpr uint32_t kQuantum = 50000;
/// Whether the holder `ts` may record one more event in its turn (counts it).
inline bool takeQuantum(ThreadState *ts) {
  uint32_t q = __atomic_load_n(&ts->quantum, __ATOMIC_RELAXED);
  __atomic_store_n(&ts->quantum, q - 1, __ATOMIC_RELAXED);
  return q > 1;
}
/// The slow half of enter(): this thread does not hold the token, or its
/// quantum is used up. Returns with the token (and inHook == kInHook), or
/// false when recording has stopped.
bool tokenAcquireSlow(ThreadState *ts);
/// Hands the token on (to the oldest waiter, else to nobody). The caller
/// holds it, is inside a hook and records nothing more before its next
/// enter().
void tokenRelease(ThreadState *ts);
/// Inside a hook, with the token: lets the threads waiting for it run
/// first (one of them may own the lock this thread is about to wait for).
/// False, keeping the token, when nobody waits.
bool tokenYield(ThreadState *ts);
/// Hands the token on if a thread waits for it; the caller records nothing
/// more before its next enter().
void tokenPass(ThreadState *ts);
/// Hands the token to `to`, a thread `ts` has just created, queued for it
/// or not: a new thread runs soon after its creation, as it would natively
/// on another core (instead of after its creator's turn, which may end
/// with the process). The caller records nothing more before its next
/// enter().
void tokenHandTo(ThreadState *ts, ThreadState *to);
/// Whether some thread holds or waits for the token, or will (a created
/// thread that has not started yet): the exit grace waits for them.
bool tokenWanted();
/// Before a call that may block, outside the recorder: a holder hands the
/// token on, so that other threads record while this one waits.
void beforeBlocking();
/// Once recording has stopped (g.stopping): takes the token from whoever
/// holds it for good, so that no thread records again -- the fast path
/// does not look at g.stopping. Threads inside a hook at this moment may
/// still finish their record (the caller waits for them).
void tokenRevoke(bool fromSignal);
/// At start-up: chooses membarrier or the fenced hooks (gTokenFence).
void tokenInit();

/// The thread state to record with, or null when this event must not be
/// recorded (runtime not initialised, category disabled, re-entered from a
/// hook or a signal handler, recording stopped). On success the thread is
/// inside the hook (inHook == kInHook) and holds the token: call leave().
ThreadState *attachSlow();
inline ThreadState *enterAs(ThreadState *ts, uint32_t category) {
  if (RP_UNLIKELY(ts->inHook || !(g.opts.eventMask & category) || ts->ended))
    return nullptr;
  ts->inHook = kInHook;
  // Replay: wait for this event's turn without the token (replay mode
  // holds it only inside hooks, see leave()). Allocations are no steps and
  // never wait: uninstrumented code allocates before it lets another
  // thread reach its next step (libomp, before it releases its workers).
  if (RP_UNLIKELY(gReplayOn) && category != kRecAlloc)
    replayGate(ts);
  // Dekker with a stealer (tokenSteal): inHook is raised before the holder
  // is read. The stealer's membarrier makes that store visible to it; the
  // compiler must not move the load above the store either.
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  if (RP_UNLIKELY(gTokenFence))
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
  if (RP_UNLIKELY(__atomic_load_n(&gToken.owner, __ATOMIC_RELAXED) != ts ||
                  !takeQuantum(ts)) &&
      !tokenAcquireSlow(ts)) {
    __atomic_store_n(&ts->inHook, kOutside, __ATOMIC_RELEASE);
    return nullptr;
  }
  return ts;
}
inline ThreadState *enter(uint32_t category) {
  ThreadState *ts = tlsState;
  if (RP_UNLIKELY(!ts)) {
    ts = attachSlow();
    if (!ts)
      return nullptr;
  }
  return enterAs(ts, category);
}
/// True when the exit flusher has started: the event must be dropped.
inline bool stopped() {
  return RP_UNLIKELY(__atomic_load_n(&g.stopping, __ATOMIC_SEQ_CST) != 0);
}
void flushThread(ThreadState *ts);
/// Flushes the buffer when fewer than `room` bytes are left, unless the
/// exit flusher has started.
inline void flushIfFull(ThreadState *ts, uint32_t room) {
  if (RP_UNLIKELY(ts->len + room > ts->cap)) {
    // Dekker with finishTrace: inHook = 1, fence, read g.stopping.
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (!stopped())
      flushThread(ts);
  }
}
inline void leave(ThreadState *ts) {
  flushIfFull(ts, kMaxRecord);
  // Replay mode holds the token only inside hooks: its turnstile already
  // orders the events, and a thread must not hold the token while it waits
  // for its turn.
  if (RP_UNLIKELY(gReplayOn))
    tokenRelease(ts);
  __atomic_store_n(&ts->inHook, kOutside, __ATOMIC_RELEASE);
}
/// leave() for a hook that blocks next: the token goes to another thread.
inline void leaveToBlock(ThreadState *ts) {
  flushIfFull(ts, kMaxRecord);
  tokenRelease(ts);
  __atomic_store_n(&ts->inHook, kOutside, __ATOMIC_RELEASE);
}
/// leave() for pthread_create: the token goes to the new thread `child`.
inline void leaveToChild(ThreadState *ts, ThreadState *child) {
  flushIfFull(ts, kMaxRecord);
  tokenHandTo(ts, child);
  __atomic_store_n(&ts->inHook, kOutside, __ATOMIC_RELEASE);
}

/// leave() after an event that lets others go on (a failed try-lock: its
/// owner may need the token to release the lock): the token goes to a
/// waiting thread, if any.
inline void leaveToWaiters(ThreadState *ts) {
  flushIfFull(ts, kMaxRecord);
  tokenPass(ts);
  __atomic_store_n(&ts->inHook, kOutside, __ATOMIC_RELEASE);
}

// --- record encoding (varints: ../common/varint.h) ------------------------
/// Writes a stack record bringing the trace's view of the call stack up to
/// date (format.h, RP_STACK); the event record follows it.
uint8_t *putStackRecord(ThreadState *ts, uint8_t *p);
inline uint32_t shownDepth(const ThreadState *ts) {
  return ts->depth < kMaxFrames ? ts->depth : kMaxFrames;
}

/// Where the next record goes: after the stack record it needs, if the
/// call stack changed since the thread's previous event.
inline uint8_t *beginRecord(ThreadState *ts) {
  uint8_t *p = ts->buf + ts->len;
  if (RP_UNLIKELY(ts->synced != ts->traceDepth || ts->synced != shownDepth(ts)))
    p = putStackRecord(ts, p);
  return p;
}
/// Starts a record of `kind` (code byte plus RP_HAS_SRC) and the stack
/// record that must precede it; returns the write cursor.
inline uint8_t *beginCode(ThreadState *ts, unsigned kind, uint32_t loc) {
  uint8_t *p = beginRecord(ts);
  *p++ = static_cast<uint8_t>(kind | (loc ? RP_HAS_SRC : 0));
  return p;
}
/// Commits the records written up to `p` (`records` of them) and
/// publishes them to the exit flusher.
inline void publishRecords(ThreadState *ts, uint8_t *p, uint32_t records) {
  ts->count += records;
  ts->len = static_cast<uint32_t>(p - ts->buf);
  __atomic_store_n(&ts->published,
                   uint64_t{ts->len} | uint64_t{ts->count} << 32,
                   __ATOMIC_RELEASE);
}
/// Appends the source id and commits the event record, which takes the
/// next seq (format v4: implicit).
inline void endRecord(ThreadState *ts, uint8_t *p, uint32_t loc) {
  if (loc)
    p = putVarint(p, loc);
  publishRecords(ts, p, 1 + ts->pending);
  ts->pending = 0;
  ++ts->events;
  ++ts->nextSeq;
}
/// endRecord for the hooks' fast path, which writes no stack record.
inline void endRecordFast(ThreadState *ts, uint8_t *p, uint32_t loc) {
  if (loc)
    p = putVarint(p, loc);
  publishRecords(ts, p, 1);
  ++ts->events;
  ++ts->nextSeq;
}

/// v2 size codes of access records (format.h).
inline unsigned sizeCode(unsigned size) {
  return size == 1   ? RP_SIZE_1
         : size == 4 ? RP_SIZE_4
         : size == 8 ? RP_SIZE_8
                     : RP_SIZE_VARINT;
}
/// Appends a location key as the delta from the block's previous one.
inline uint8_t *putLocation(ThreadState *ts, uint8_t *p, uint64_t lkey) {
  p = putVarint(p, zigzag(static_cast<int64_t>(lkey - ts->prevLoc)));
  ts->prevLoc = lkey;
  return p;
}
/// Writes an access record's code (with size code), location and [size]
/// at `p` (after any stack record).
inline uint8_t *putAccessHead(ThreadState *ts, uint8_t *p, unsigned kind,
                              uint64_t lkey, unsigned size, uint32_t loc) {
  unsigned sc = sizeCode(size);
  *p++ =
      static_cast<uint8_t>(kind | sc << RP_SIZE_SHIFT | (loc ? RP_HAS_SRC : 0));
  p = putLocation(ts, p, lkey);
  if (sc == RP_SIZE_VARINT)
    p = putVarint(p, size);
  return p;
}
/// Starts an access record: stack record if due, code, location, [size].
inline uint8_t *beginAccess(ThreadState *ts, unsigned kind, uint64_t lkey,
                            unsigned size, uint32_t loc) {
  return putAccessHead(ts, beginRecord(ts), kind, lkey, size, loc);
}
/// Writes a branch record's body at `p`: its `m` dependences as seq
/// distances back from this event's seq (format v4), then the source id;
/// commits it.
inline void putBranchDeps(ThreadState *ts, uint8_t *p, const uint64_t *deps,
                          uint32_t m, uint32_t loc, bool fast) {
  uint64_t self = ts->nextSeq;
  p = putVarint(p, m + 1);
  for (uint32_t k = 0; k < m; ++k)
    p = putVarint(p, self - deps[k]);
  if (fast)
    endRecordFast(ts, p, loc);
  else
    endRecord(ts, p, loc);
}

/// The thread's next event comes `n` seqs later than it would: other
/// threads recorded meanwhile, or a seq is reserved (a segment record, or
/// an empty block simply starts later).
inline void skipSeqs(ThreadState *ts, uint64_t n) {
  if (ts->count == 0 && ts->pending == 0) {
    ts->firstSeq += n;
  } else {
    uint8_t *p = ts->buf + ts->len;
    *p++ = RP_SEGMENT;
    p = putVarint(p, n);
    publishRecords(ts, p, 1); // not an event
  }
  ts->nextSeq += n;
}
/// In a condition wait, holding the token, right after releasing the mutex
/// `lock`: reserves the next seq for the release half (see waitRel).
void reserveWaitRelease(ThreadState *ts, uint64_t lock, uint32_t loc);

/// Records an event whose operands are `n` varints (sync events); `code`
/// is its kind, with RP_PAST_DEADLINE for a timed call (deadline.h).
void recordSimple(ThreadState *ts, unsigned code, uint32_t loc,
                  const uint64_t *ops, int n);
/// Records an alloc/free of `size` bytes at location `lkey`.
void recordBlockEvent(ThreadState *ts, unsigned kind, uint64_t lkey,
                      uint64_t size, uint32_t loc);
/// Records a sync event (with the token), unless stopping.
void recordSync(unsigned kind, uint32_t loc, const uint64_t *ops, int n,
                uint32_t category = kRecSync);
inline uint64_t key(const void *p) { return reinterpret_cast<uintptr_t>(p); }

/// Like enter() but never attaches a new thread (allocation hooks run inside
/// glibc's thread start-up, before the trampoline has set up its state).
inline ThreadState *enterAttached(uint32_t category) {
  ThreadState *ts = tlsState;
  return ts ? enterAs(ts, category) : nullptr;
}

/// Marks the read just recorded for the plain-branch filter and
/// branch_deps (which name it by its seq).
inline void noteRead(ThreadState *ts) {
  ts->readsSinceBranch = true;
  __racepredict_read_seq = ts->nextSeq - 1;
}

// --- blocking calls that can last for good (recording_watchdog.cpp) ------
/// Before the real call: the thread may block in it for good (`kind` is the
/// event it records on return; `obj` its object).
inline void noteBlocked(unsigned kind, uint64_t obj, uint32_t loc) {
  ThreadState *ts = tlsState;
  if (!ts)
    return;
  ts->blockedKind = kind;
  ts->blockedObj = obj;
  ts->blockedLoc = loc;
  __atomic_store_n(&ts->blockSeq, ts->blockSeq | 1, __ATOMIC_RELEASE);
}
/// After it.
inline void noteUnblocked() {
  ThreadState *ts = tlsState;
  if (ts && (ts->blockSeq & 1))
    __atomic_store_n(&ts->blockSeq, ts->blockSeq + 1, __ATOMIC_RELEASE);
}

// --- stopping early (limits.cpp, recording_watchdog.cpp) -----------------
/// Why the recording stops before the program's own end: the trace's STOP
/// block (format.h).
struct StopNote {
  uint32_t reason; ///< RP_STOP_*
  uint64_t value;
  const char *text; ///< null: none
  /// An observed deadlock: the blocked threads.
  static constexpr uint32_t kMaxBlocked = 64;
  uint32_t numBlocked;
  struct Blocked {
    uint32_t key, kind, loc;
    uint64_t obj;
  } blocked[kMaxBlocked];
};
/// Exit status of a program the recorder ended (a limit, an observed
/// deadlock), as timeout(1)'s.
inline constexpr int kStoppedExitStatus = 124;
/// Writes the trace with `note`, says why on stderr and ends the program
/// (kStoppedExitStatus). From a hook (a limit reached there) or the
/// watchdog thread.
[[noreturn]] void stopRecording(const StopNote &note, const char *why);
/// The quantum for a holder whose next event is `ts->nextSeq`: kQuantum
/// less a pseudo-random jitter of up to 1023 events (limits.cpp),
/// or fewer if max_events is near; stops the recording if it is reached.
uint32_t quantumFor(ThreadState *ts);
/// After writing a block: stops the recording if max_trace_bytes is reached.
void checkTraceBytes();
/// From the watchdog: stops the recording if max_seconds is reached.
void checkSeconds();
/// Starts the watchdog thread (max_seconds, observed deadlocks) once: from
/// the program's first pthread_create, or at the start (ensureInit, a forked
/// child: atStart) when max_seconds is set.
void startRecordingWatchdog(bool atStart);
/// The forked child has no watchdog thread: startRecordingWatchdog starts one.
void resetRecordingWatchdogInChild();

// --- lifecycle (trace_writer.cpp, init.cpp) -------------------------------
/// Initialises the runtime once (options, trace file, main thread, exit
/// handlers); false while initialisation is in progress on this thread.
bool ensureInit();
// --- fork (fork_exec.cpp) ----------------------------------------------------
/// The atfork child handler: the child records a trace of its own.
void restartInChild();
/// What the child drops of its parent's state, each in its own file: the
/// token queue, the pthread_t table, condition waiters, pending acquisitions
/// and locks; and the SOURCES/GLOBALS of every module, written again.
void resetTokenInChild();
void resetThreadTableInChild();
void resetCondWaitersInChild();
void resetLockStateInChild();
void rewriteModules();

// --- the trace file (trace_file.cpp) ---------------------------------------
/// The trace name of process `pid` (0: this one, as trace= says): a fixed
/// name becomes <stem>.<pid>.rptrace for another process (a forked child).
void traceNameFor(char *out, size_t cap, int pid);
/// `name` without its .rptrace extension.
void traceStem(char *out, size_t cap, const char *name);
/// Creates the trace `name` (or <stem>.<pid>.rptrace if another process
/// records into it) and writes the header; g.fd, g.traceName.
void openTrace(const char *name);
void writeBlock(uint8_t type, const uint8_t *payload, uint32_t len);
/// Exit / fatal-signal path: stops recording, writes every buffer, the STOP
/// block if `note` (the recording stopped before the program's end) and END.
void finishTrace(bool fromSignal, const StopNote *note = nullptr);
void installExitHandlers();
// --- thread lifecycle (thread_state.cpp) -----------------------------------
/// A state for the thread `threadKey` (kernel thread id `tid`, 0 if not
/// known yet): a retired one if there is one, else a new one.
ThreadState *newThreadState(uint32_t threadKey, int tid);
int currentTid();
/// Records the thread's end (unless recording stopped), writes its buffer
/// and hands the token on for good; the state is then reused. From the
/// start trampoline, pthread_exit and exit.
void threadEnd(ThreadState *ts);
/// Creates the thread-specific data key whose destructor records a created
/// thread's end after the program's own key destructors. From ensureInit.
void threadEndKeyInit();
/// Gives the state of a thread that was never started (its pthread_create
/// failed) back for reuse.
void retireUnstarted(ThreadState *ts);

} // namespace racepredict::rt
