//===- record/token.cpp - The recording token: one recorder at a time -----===//
//
// docs/recording.md, "Consistency". A thread records an event only while it
// holds the token, so recorded events never overlap and the order in which
// they are recorded is a sequentially consistent observation of the run:
// each access is performed and recorded while no other recorded access can
// happen, and the token's hand-over (a release store and an acquire load,
// or a lock) orders everything one holder did before everything the next
// one does. The global sequence therefore needs no atomic instruction per
// event: the holder numbers its events from a thread-local copy.
//
// A holder keeps the token between hooks; it hands it on
//   * before a call that may block (sync hooks, the interposed blocking
//     libc calls of blocking_calls.c), because the thread it waits for may
//     need to record first;
//   * to a thread it has just created (tokenHandTo), which runs soon, as it
//     would natively;
//   * when its quantum (kQuantum events) or its time slice (kSliceNs) is
//     used up and a thread waits, so that every thread makes progress (spin
//     loops on atomics included).
// A holder that does neither for long -- blocked in a call the runtime does
// not see (a futex inside libc, a pipe read in uninstrumented code) or
// computing without events -- has the token taken from it by the oldest
// waiter (tokenSteal). Stealing is safe only while the holder is outside
// the recorder: the stealer publishes the new holder, then runs
// membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), which makes every running
// thread execute a full barrier, and then waits until the holder's inHook
// is not kInHook. A hook raises inHook before it reads the holder, so it
// either finishes before the stealer goes on or reads the new holder and
// waits (asymmetric Dekker: the hooks pay no fence; without membarrier
// they do, gTokenFence).
//
#include "state.h"

#include "../common/raw_io.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

namespace racepredict::rt {

TokenHolder gToken;
bool gTokenFence;

namespace {

/// The holder once recording has stopped (tokenRevoke): a thread that is
/// never anybody, so that no hook (the fast path included) finds the token
/// its own again and every waiter gives up.
ThreadState gRevoked;

/// The wait queue (FIFO) and the seq the next holder starts from. The
/// lock is held for a handful of instructions.
///
/// Every member has an initialiser, so the queue is initialised at compile
/// time. With one member left out the constructor is not constexpr (C++17)
/// and runs from .init_array *after* the program's own global constructors
/// (the runtime is linked after the program's objects): it set nextSeq back
/// to 1 after events of those constructors had been recorded, so later
/// seqs went backwards — the cause of replays diverging after a global
/// constructor (docs/replay.md, "C++ programs: before main and before the
/// first thread").
struct alignas(64) TokenQueue {
  volatile uint32_t lock = 0;
  ThreadState *head = nullptr;
  ThreadState *tail = nullptr;
  /// The seq of the next recorded event; written by a holder when it lets
  /// go of the token, read by the next one. Seq 0 is never used (a read's
  /// seq 0 means "not recorded" to branch_deps).
  uint64_t nextSeq = 1;
};
TokenQueue gQueue;

/// How long the oldest waiter waits before it takes the token from a
/// holder that has recorded nothing meanwhile: sooner when the holder is
/// asleep in the kernel (it is blocked in a call the runtime does not see),
/// later when it is running (it computes without events, or is about to
/// reach a hook and hand the token on).
constexpr unsigned kStealAsleepMs = 1;
constexpr unsigned kStealRunningMs = 5;
/// The time slice: how long a holder keeps the token, at most, while
/// another thread waits for it, if it records meanwhile (the oldest waiter
/// ends its turn at its next event). Native threads run side by side; a
/// slice of a millisecond keeps a thread that records little (its events
/// far apart, or a spin loop waiting for a waiter) from holding the others
/// up for its whole quantum.
constexpr uint64_t kSliceNs = 1000000;

/// How long a waiter leaves the token with a new thread that has not
/// started yet (waitForToken).
constexpr unsigned kStartWaitMs = 1000;

/// How many hook calls a start turn may be extended by while its thread
/// holds a lock (tokenAcquireSlow).
constexpr uint32_t kStartTurnMax = 4096;

void futexWait(uint32_t *word, uint32_t expected, long ns) {
  struct timespec t = {0, ns};
  syscall(SYS_futex, word, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, expected, &t,
          nullptr, 0);
}
void futexWake(uint32_t *word) {
  syscall(SYS_futex, word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, nullptr, nullptr,
          0);
}

/// Removes `ts` from the queue; the caller holds the queue lock.
void unlinkWaiter(ThreadState *ts) {
  ThreadState **pp = &gQueue.head, *prev = nullptr;
  while (*pp && *pp != ts) {
    prev = *pp;
    pp = &(*pp)->tokenNext;
  }
  if (!*pp)
    return;
  *pp = ts->tokenNext;
  if (gQueue.tail == ts)
    gQueue.tail = prev;
  ts->tokenNext = nullptr;
}

/// Whether the kernel thread `tid` of this process is not running: asleep
/// (S, D), stopped, a zombie or gone. Read from /proc with raw system calls
/// (the interposed read(2) must not see the runtime).
bool notRunning(int tid) {
  if (tid == 0)
    return false; // a new thread that has not started yet: it is starting
  char path[64] = "/proc/self/task/";
  size_t n = 16;
  char digits[16];
  int k = 0;
  for (unsigned v = static_cast<unsigned>(tid); k == 0 || v; v /= 10)
    digits[k++] = static_cast<char>('0' + v % 10);
  while (k)
    path[n++] = digits[--k];
  const char *tail = "/stat";
  for (const char *s = tail; *s; ++s)
    path[n++] = *s;
  path[n] = 0;
  long fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return true; // the thread is gone
  char buf[512];
  long got = syscall(SYS_read, fd, buf, sizeof buf - 1);
  syscall(SYS_close, fd);
  if (got <= 0)
    return true;
  buf[got] = 0;
  // "tid (comm) S ...": the state follows the last ')'.
  const char *state = nullptr;
  for (long i = 0; i < got; ++i)
    if (buf[i] == ')')
      state = buf + i;
  if (!state || state[1] != ' ')
    return false;
  return state[2] != 'R';
}

/// Makes every thread of the process execute a full barrier (see the file
/// comment); a no-op in the fenced fallback, where the hooks fence.
void serializeAllThreads() {
  if (!gTokenFence)
    syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
}

/// A holder that stays inside a hook (waitForToken, tokenSteal): warns, and
/// writes the trace up to here as the exit path does; every hook records
/// nothing from now on, so no thread waits for the token again.
void abandonRecording(ThreadState *holder) {
  RawBuf b;
  b.str("racepredict: warning: thread t")
      .num(holder->key)
      .str(" has stayed inside a recording hook for ")
      .num(g.opts.stuck_hook_ms)
      .str(" ms (a signal handler that jumped out of a faulting access?); "
           "recording stops here, the trace ends with what was recorded\n");
  writeAll(2, b.data, b.len);
  StopNote note{};
  note.reason = RP_STOP_STUCK_HOOK;
  note.value = holder->key;
  finishTrace(false, &note);
}

/// Takes the token from `holder`, which has not recorded for a long time
/// (or nobody holds it). `ts` is the oldest waiter. True when `ts` holds
/// the token now.
bool tokenSteal(ThreadState *ts, ThreadState *holder) {
  spinLock(&gQueue.lock);
  if (__atomic_load_n(&gToken.owner, __ATOMIC_RELAXED) != holder ||
      gQueue.head != ts || stopped()) {
    spinUnlock(&gQueue.lock);
    return false;
  }
  unlinkWaiter(ts);
  __atomic_store_n(&gToken.owner, ts, __ATOMIC_SEQ_CST);
  spinUnlock(&gQueue.lock);
  if (!holder)
    return true;
  serializeAllThreads();
  // The holder either is inside a hook that read the old holder (let it
  // finish: hooks do not block while they hold the token) or will read us.
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (unsigned spins = 0;
       __atomic_load_n(&holder->inHook, __ATOMIC_ACQUIRE) == kInHook; ++spins) {
    if (spins < 128) {
      __builtin_ia32_pause();
      continue;
    }
    sched_yield();
    clock_gettime(CLOCK_MONOTONIC, &now);
    int64_t ms = (now.tv_sec - start.tv_sec) * 1000 +
                 (now.tv_nsec - start.tv_nsec) / 1000000;
    if (ms >= static_cast<int64_t>(g.opts.stuck_hook_ms)) { // stays inside
      abandonRecording(holder);
      return true; // ours, but nothing records any more
    }
  }
  // The sequence goes on from the holder's next seq if it recorded since it
  // got the token, else from what its predecessor published (a holder
  // robbed before it ran still has the seq of its previous turn).
  uint64_t held = __atomic_load_n(&holder->nextSeq, __ATOMIC_ACQUIRE);
  if (held > gQueue.nextSeq)
    gQueue.nextSeq = held;
  return true;
}

/// Queues `ts` and waits until the token is handed to it (or taken by it).
/// False when recording stopped meanwhile (the caller does not record).
bool waitForToken(ThreadState *ts) {
  spinLock(&gQueue.lock);
  ThreadState *none = nullptr;
  if (__atomic_load_n(&gToken.owner, __ATOMIC_ACQUIRE) == ts || // handed
      __atomic_compare_exchange_n(&gToken.owner, &none, ts, false,
                                  __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
    spinUnlock(&gQueue.lock);
    return true;
  }
  __atomic_store_n(&ts->tokenWord, 0, __ATOMIC_RELAXED);
  ts->tokenNext = nullptr;
  (gQueue.tail ? gQueue.tail->tokenNext : gQueue.head) = ts;
  gQueue.tail = ts;
  spinUnlock(&gQueue.lock);

  ThreadState *seen = nullptr;
  uint64_t seenSeq = 0, turnStart = 0;
  unsigned stalledMs = 0, stuckMs = 0;
  for (;;) {
    // The oldest waiter looks every millisecond whether to take the token
    // (below); the others only need to notice that recording stopped.
    bool first = __atomic_load_n(&gQueue.head, __ATOMIC_RELAXED) == ts;
    futexWait(&ts->tokenWord, 0, first ? 1000000 : 20000000);
    if (__atomic_load_n(&ts->tokenWord, __ATOMIC_ACQUIRE))
      return true;
    if (stopped()) {
      spinLock(&gQueue.lock);
      bool handed = __atomic_load_n(&ts->tokenWord, __ATOMIC_ACQUIRE) != 0;
      if (!handed)
        unlinkWaiter(ts);
      spinUnlock(&gQueue.lock);
      if (handed)
        tokenRelease(ts); // nobody records any more; pass it on anyway
      return false;
    }
    ThreadState *holder = __atomic_load_n(&gToken.owner, __ATOMIC_ACQUIRE);
    if (!holder) { // not expected with waiters queued; take it if first
      if (tokenSteal(ts, nullptr))
        return true;
      continue;
    }
    uint64_t progress = __atomic_load_n(&holder->nextSeq, __ATOMIC_RELAXED);
    first = __atomic_load_n(&gQueue.head, __ATOMIC_RELAXED) == ts;
    if (holder != seen) {
      seen = holder;
      seenSeq = progress;
      turnStart = nowNs();
      stalledMs = stuckMs = 0;
      continue;
    }
    if (first && nowNs() - turnStart >= kSliceNs)
      // The slice is over: the holder hands the token on at its next event
      // (tokenAcquireSlow). Asked again every millisecond, since the
      // holder's own count may overwrite this.
      __atomic_store_n(&holder->quantum, 1, __ATOMIC_RELAXED);
    if (progress != seenSeq) {
      seenSeq = progress;
      stalledMs = stuckMs = 0;
      continue;
    }
    ++stalledMs;
    if (!first)
      continue;
    if (__atomic_load_n(&holder->inHook, __ATOMIC_ACQUIRE) == kInHook) {
      // Hooks are short: one that lasts is a thread that left it by
      // longjmp (from a fault inside the access) or is stopped. Taking the
      // token is unsafe, waiting forever a hang: stop recording instead.
      if (++stuckMs >= g.opts.stuck_hook_ms) {
        abandonRecording(holder);
        return false;
      }
      continue;
    }
    stuckMs = 0;
    // A new thread handed the token at its creation that has not started
    // yet (its tid is not known: it would look gone) will start; wait for
    // it as ThreadSanitizer's creator does. Taken after 1 ms, its start
    // turn was lost on a loaded machine (the creator ran the pthread_once
    // routine itself in 2 of 8 recordings at load 10).
    if (!__atomic_load_n(&holder->tid, __ATOMIC_RELAXED) &&
        stalledMs < kStartWaitMs)
      continue;
    if ((stalledMs >= kStealAsleepMs && notRunning(holder->tid)) ||
        stalledMs >= kStealRunningMs) {
      if (tokenSteal(ts, holder))
        return true;
    }
  }
}

/// The token just became ours: continue the global sequence, with a
/// segment record when other threads recorded since our last event.
void onAcquired(ThreadState *ts) {
  uint64_t next = gQueue.nextSeq;
  ts->granted = false;
  // Even once recording has stopped: a holder numbering its events from a
  // stale seq would give two events one number.
  if (next != ts->nextSeq)
    skipSeqs(ts, next - ts->nextSeq);
  // A new thread's first turn is its start turn (start_turn_events): then
  // its creator, queued meanwhile, goes on.
  __atomic_store_n(&ts->quantum,
                   ts->startTurn ? g.opts.start_turn_events : quantumFor(ts),
                   __ATOMIC_RELAXED);
}

} // namespace

bool tokenAcquireSlow(ThreadState *ts) {
  if (stopped())
    return false;
  if (__atomic_load_n(&gToken.owner, __ATOMIC_ACQUIRE) == ts) {
    if (ts->granted) { // handed to this new thread by its creator
      onAcquired(ts);
      return true;
    }
    // A start turn ends outside critical sections, as a native thread is
    // seldom preempted in one: ended inside, each new philosopher of five
    // was stopped holding its forks, and the recorded run deadlocked in 5
    // of 8 recordings (none of 20 native runs did). Extended a hook call
    // at a time, kStartTurnMax calls at most (a lock released where no
    // hook sees it).
    if (ts->startTurn) {
      if (ts->locksHeld && ++ts->startTurnExtra < kStartTurnMax) {
        __atomic_store_n(&ts->quantum, 1, __ATOMIC_RELAXED);
        return true;
      }
      ts->startTurn = false;
    }
    // The quantum or the slice is used up: a waiter's turn, if any.
    __atomic_store_n(&ts->quantum, quantumFor(ts), __ATOMIC_RELAXED);
    if (!__atomic_load_n(&gQueue.head, __ATOMIC_RELAXED))
      return true;
    tokenRelease(ts);
  }
  for (;;) {
    __atomic_store_n(&ts->inHook, kWaitingForToken, __ATOMIC_RELEASE);
    bool got = waitForToken(ts);
    __atomic_store_n(&ts->inHook, kInHook, __ATOMIC_RELAXED);
    if (!got)
      return false;
    // Dekker again (enterAs): a stealer may have taken the token between
    // the hand-over and our inHook store.
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (gTokenFence)
      __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (__atomic_load_n(&gToken.owner, __ATOMIC_ACQUIRE) == ts)
      break;
  }
  onAcquired(ts);
  return true;
}

void tokenRelease(ThreadState *ts) {
  ts->startTurn = false; // blocked or handed on: the turn is over
  spinLock(&gQueue.lock);
  if (__atomic_load_n(&gToken.owner, __ATOMIC_RELAXED) != ts) {
    spinUnlock(&gQueue.lock); // taken by a stealer meanwhile
    return;
  }
  gQueue.nextSeq = ts->nextSeq;
  ThreadState *w = gQueue.head;
  if (w) {
    gQueue.head = w->tokenNext;
    if (!gQueue.head)
      gQueue.tail = nullptr;
    w->tokenNext = nullptr;
    __atomic_store_n(&gToken.owner, w, __ATOMIC_RELEASE);
    __atomic_store_n(&w->tokenWord, 1, __ATOMIC_RELEASE);
  } else {
    __atomic_store_n(&gToken.owner, nullptr, __ATOMIC_RELEASE);
  }
  spinUnlock(&gQueue.lock);
  if (w)
    futexWake(&w->tokenWord);
}

void tokenHandTo(ThreadState *ts, ThreadState *to) {
  spinLock(&gQueue.lock);
  if (__atomic_load_n(&gToken.owner, __ATOMIC_RELAXED) != ts) {
    spinUnlock(&gQueue.lock); // taken by a stealer meanwhile
    return;
  }
  gQueue.nextSeq = ts->nextSeq;
  // The new thread may be queued already (it ran up to its first event
  // while its creator recorded the fork), or not yet.
  bool queued = false;
  for (ThreadState *w = gQueue.head; w && !queued; w = w->tokenNext)
    queued = w == to;
  if (queued) {
    unlinkWaiter(to);
    __atomic_store_n(&gToken.owner, to, __ATOMIC_RELEASE);
    __atomic_store_n(&to->tokenWord, 1, __ATOMIC_RELEASE);
  } else {
    to->granted = true;
    __atomic_store_n(&gToken.owner, to, __ATOMIC_RELEASE);
  }
  spinUnlock(&gQueue.lock);
  if (queued)
    futexWake(&to->tokenWord);
}

bool tokenWanted() {
  ThreadState *owner = __atomic_load_n(&gToken.owner, __ATOMIC_ACQUIRE);
  return __atomic_load_n(&gQueue.head, __ATOMIC_ACQUIRE) ||
         (owner && owner != &gRevoked) ||
         __atomic_load_n(&g.starting, __ATOMIC_ACQUIRE); // will want it
}

void resetTokenInChild() {
  gQueue.lock = 0;
  gQueue.head = gQueue.tail = nullptr;
  gQueue.nextSeq = 1;
  __atomic_store_n(&gToken.owner, nullptr, __ATOMIC_RELAXED);
}

void tokenPass(ThreadState *ts) {
  if (__atomic_load_n(&gQueue.head, __ATOMIC_RELAXED))
    tokenRelease(ts);
}

bool tokenYield(ThreadState *ts) {
  if (!__atomic_load_n(&gQueue.head, __ATOMIC_RELAXED))
    return false;
  tokenRelease(ts);
  tokenAcquireSlow(ts); // false only once recording stopped: nothing to write
  return true;
}

void tokenRevoke(bool fromSignal) {
  // In a signal handler the interrupted code may hold the queue lock (a
  // handful of instructions, but it cannot finish them before we return):
  // then the store goes ahead without it, which only a waiter stealing at
  // this very moment could miss -- and the stealer checks stopped() under
  // the lock, after we set it.
  bool locked = true;
  if (fromSignal) {
    locked = false;
    for (int i = 0; i < 1000 && !locked; ++i, sched_yield())
      locked = !__atomic_exchange_n(&gQueue.lock, 1, __ATOMIC_ACQUIRE);
  } else {
    spinLock(&gQueue.lock);
  }
  __atomic_store_n(&gToken.owner, &gRevoked, __ATOMIC_SEQ_CST);
  if (locked)
    spinUnlock(&gQueue.lock);
  // A hook that read the old holder has raised inHook before (the caller
  // waits for it to drop); every later one reads gRevoked.
  serializeAllThreads();
}

void beforeBlocking() {
  ThreadState *ts = tlsState;
  if (!ts || ts->inHook || stopped() ||
      __atomic_load_n(&gToken.owner, __ATOMIC_RELAXED) != ts)
    return;
  ts->inHook = kInHook;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  if (gTokenFence)
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
  tokenRelease(ts); // a no-op if a stealer took it meanwhile
  __atomic_store_n(&ts->inHook, kOutside, __ATOMIC_RELEASE);
}

/// From ensureInit: the cheap Dekker needs membarrier's expedited command.
void tokenInit() {
  long q = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
  gTokenFence = q < 0 || !(q & MEMBARRIER_CMD_PRIVATE_EXPEDITED) ||
                syscall(SYS_membarrier,
                        MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) != 0;
}

} // namespace racepredict::rt

extern "C" void __racepredict_before_blocking(void) {
  racepredict::rt::beforeBlocking();
}
