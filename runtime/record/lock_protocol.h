//===- record/lock_protocol.h - Recording an acquisition or a release ----===//
//
// How a lock-like object's events are recorded with the token, shared by
// the pthread hooks (sync_hooks.cpp) and OpenMP's locks and critical
// sections (omp_hooks.cpp). Release-like events are recorded right after
// the real call with the token still held, acquire-like ones after the call
// succeeded, so every acquire follows the release it waited for. A lock is
// tried while holding the token (the uncontended case records at once);
// when it is taken, the thread lets the token's waiters run first (the
// owner is usually one of them) and tries again; only when nobody waits for
// the token does it block in the real call without it. A thread that got a
// lock that way owns it before it can record the acquisition: it counts
// itself in gPendingAcquires meanwhile, and a try-lock that fails then
// retries after letting it record, so that no failed try-lock is recorded
// where the trace shows the lock free. (Blocking in the real call at the
// first failure made lock convoys: each thread woke owning the lock while
// the other held the token, two context switches per critical section.)
//
#pragma once

#include "deadline.h"
#include "state.h"

#include <errno.h>
#include <sched.h>
#include <time.h>

namespace racepredict::rt {

/// The record code of a successful try-lock: it never waited, so the
/// analysis does not make it the blocked request of a deadlock
/// (RP_TRY_ACQUIRE, format.h v7). A timed lock that got its lock at the
/// retry after its deadline (lockTimed) is not marked: it waited first.
inline constexpr unsigned kTryAcquire = RP_ACQUIRE | RP_TRY_ACQUIRE;

/// Lock objects may be volatile (pthread_spinlock_t is a volatile int).
inline uint64_t objKey(const volatile void *obj) {
  return reinterpret_cast<uintptr_t>(obj);
}

inline void recordObj(ThreadState *ts, unsigned kind, const volatile void *obj,
                      uint32_t loc) {
  if (stopped())
    return;
  uint64_t ops[1] = {objKey(obj)};
  recordSimple(ts, kind, loc, ops, 1);
  if ((kind & RP_KIND_MASK) == RP_TRYFAIL)
    ts->readsSinceBranch = true; // branches depend on failed try-locks
}

/// Before the real blocking call of an acquisition: from the moment that
/// call takes `obj`, this thread owns it without having recorded it
/// (ownedUnrecorded). Announced before the call, since afterwards comes
/// too late for a try-lock that fails in between.
inline void announceAcquiring(const volatile void *obj) {
  if (ThreadState *ts = tlsState)
    __atomic_store_n(&ts->acquiring, objKey(obj), __ATOMIC_SEQ_CST);
}

/// Records the acquisition `kind` (operands `ops`, the object's key if
/// none) that a blocking call returning `r` (0: acquired) made without the
/// token; the object counts as pending until then (file comment).
inline int acquiredLate(int r, unsigned kind, const volatile void *obj,
                        uint32_t loc, const uint64_t *ops = nullptr,
                        int n = 1) {
  if (r == 0) {
    uint64_t own[1] = {objKey(obj)};
    uint32_t *pending = pendingFor(objKey(obj));
    __atomic_add_fetch(pending, 1, __ATOMIC_SEQ_CST);
    recordSync(kind, loc, ops ? ops : own, n);
    __atomic_sub_fetch(pending, 1, __ATOMIC_RELEASE);
  }
  if (ThreadState *ts = tlsState)
    __atomic_store_n(&ts->acquiring, 0, __ATOMIC_RELEASE);
  return r;
}

/// Whether another thread owns the lock `l` that a try-lock just found
/// taken without having recorded its acquisition yet: the failure must not
/// be recorded then (the trace would show the lock free). A thread counts
/// itself pending right after its blocking call returns; for a mutex,
/// whose owner glibc writes into it (__data.__owner, a kernel tid), the
/// owner's announcement (announceAcquiring) also covers the instructions
/// between the call taking the lock and that count.
template <typename L> bool ownedUnrecorded(L *l) {
  return __atomic_load_n(pendingFor(objKey(l)), __ATOMIC_ACQUIRE) != 0;
}
inline bool ownedUnrecorded(pthread_mutex_t *m) {
  if (__atomic_load_n(pendingFor(objKey(m)), __ATOMIC_ACQUIRE))
    return true;
  int owner = __atomic_load_n(&m->__data.__owner, __ATOMIC_ACQUIRE);
  // 0: the owner is between taking the lock and writing its tid; if it
  // announced itself, it is one of the announced threads.
  for (ThreadState *t = __atomic_load_n(&g.threads, __ATOMIC_ACQUIRE); t;
       t = t->next)
    if (__atomic_load_n(&t->acquiring, __ATOMIC_ACQUIRE) == objKey(m) &&
        (owner == 0 || t->tid == owner))
      return true;
  return false;
}

/// Tries a lock (`tryFn` returns 0 or EBUSY like pthread_mutex_trylock)
/// with the token, letting the token's waiters run between tries: the
/// owner is usually one of them. EBUSY: still taken after
/// a few rounds, or nobody else waits for the token.
template <typename L, typename T>
int tryWithToken(ThreadState *ts, L *l, T tryFn) {
  int r = tryFn(l);
  for (int i = 0; r == EBUSY && i < 8 && tokenYield(ts); ++i)
    r = tryFn(l);
  return r;
}
/// A blocking acquisition (lock, timed lock, semaphore wait, a condition
/// wait's return): tried with the token (`tryFn` returns 0 or EBUSY),
/// yielding to the token's waiters; else `blockFn` without the token, the
/// acquisition recorded late. The event is `kind` on the object, or with
/// operands `ops` when given; a timed call's (deadline `dl`) says whether
/// it returned after its deadline. Replay gates before the real call
/// instead (its turnstile decides who gets it).
template <typename L, typename T, typename B>
int acquire(L *l, T tryFn, B blockFn, unsigned kind, bool deadlockable,
            uint32_t loc, const uint64_t *ops = nullptr, int n = 1,
            const Deadline *dl = nullptr) {
  if (RP_UNLIKELY(gReplayOn)) {
    preBlock(l, kind, loc, deadlockable);
    int r = postBlock(blockFn(l));
    if (r == 0)
      replayAwaitDeadline(dl);
    return acquiredLate(r, kind, l, loc, ops, n);
  }
  if (ThreadState *ts = enter(kRecSync)) {
    int r = tryWithToken(ts, l, tryFn);
    if (r == 0 || r == EOWNERDEAD) { // EOWNERDEAD: a robust mutex, acquired
      if (ops && !stopped())
        recordSimple(ts, kind | pastDeadline(dl), loc, ops, n);
      else if (!ops)
        recordObj(ts, kind | pastDeadline(dl), l, loc);
      leave(ts);
      return r;
    }
    leaveToBlock(ts);
    announceAcquiring(l);
  } else {
    beforeBlocking();
  }
  // A condition wait's return half waits for its mutex.
  if (deadlockable)
    noteBlocked(kind == RP_WAIT ? unsigned{RP_ACQUIRE} : kind, objKey(l), loc);
  int r = blockFn(l);
  noteUnblocked();
  return acquiredLate(r, r == 0 ? kind | pastDeadline(dl) : kind, l, loc, ops,
                      n);
}

/// A try-lock, with the token. A failure while another thread owns the lock
/// without having recorded it yet waits for that record (it needs the
/// token, which this thread hands on meanwhile; bounded by a second in
/// case that thread is stopped).
template <typename L, typename F>
int tryAcquire(L *l, F tryFn, unsigned kind, uint32_t loc,
               const Deadline *dl = nullptr) {
  ThreadState *ts = enter(kRecSync);
  if (!ts)
    return tryFn(l);
  int r = tryFn(l);
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  while (r == EBUSY && ownedUnrecorded(l)) {
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - start.tv_sec >= 2)
      break;
    leaveToBlock(ts);
    sched_yield();
    ts = enter(kRecSync);
    if (!ts)
      return tryFn(l);
    r = tryFn(l);
  }
  if (r == 0) {
    recordObj(ts, kind | pastDeadline(dl), l, loc);
  } else if (r == EBUSY) {
    recordObj(ts, RP_TRYFAIL | pastDeadline(dl), l, loc);
    // The owner may wait for the token to release the lock: a thread
    // spinning on try-locks with the token would hold it up for a whole
    // quantum per round (natively both run at once).
    leaveToWaiters(ts);
    return r;
  }
  leave(ts);
  return r;
}

/// A call that cannot block (unlock, sem_post, sem_trywait), made with the
/// token and recorded as `kind` when it succeeds: no other thread can
/// record anything between the call and its event.
template <typename L, typename F>
int callRecorded(L *l, F fn, unsigned kind, uint32_t loc) {
  ThreadState *ts = enter(kRecSync);
  if (!ts)
    return fn(l);
  int r = fn(l);
  if (r == 0)
    recordObj(ts, kind, l, loc);
  leave(ts);
  return r;
}
} // namespace racepredict::rt
