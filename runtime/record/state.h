//===- record/state.h - Recorder state: the token, encoding ---------------===//
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
// The per-thread and global state these work on is in thread_state.h.
//
#pragma once

#include "thread_state.h"

namespace racepredict::rt {

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
/// holds it for good, so that no thread records again. Threads inside a
/// hook at this moment may still finish their record (the caller waits for
/// them).
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
/// True when the exit flusher has started: the event must be dropped. A
/// thread that sees it has no fast path any more (finishTrace turns them
/// off first), so every later hook of it drops its event too: each thread's
/// recorded events stay a prefix of what it did.
inline bool stopped() {
  return RP_UNLIKELY(__atomic_load_n(&g.stopping, __ATOMIC_SEQ_CST) != 0);
}
/// True once finishTrace has begun (it sets g.stopping a moment later).
inline bool finishing() {
  return RP_UNLIKELY(__atomic_load_n(&g.finishing, __ATOMIC_SEQ_CST) != 0);
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
