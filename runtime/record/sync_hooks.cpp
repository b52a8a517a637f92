//===- record/sync_hooks.cpp - Mutexes, spin/rw locks, barriers, semaphores
//===//
//
// Every event is recorded while the thread holds the recording token
// (docs/recording.md). Release-like events are recorded right after the
// real call, acquire-like ones after it succeeded, both with the token, so
// every acquire follows the release it waited for. A lock is tried while
// holding the token (the uncontended case records at once); when it is
// taken, the thread lets the token's waiters run first (the owner is
// usually one of them) and tries again; only when nobody waits for the
// token does it block in the real call without it. A thread that got a
// lock that way owns it before it can record the acquisition: it counts
// itself in gPendingAcquires meanwhile, and a try-lock that fails then
// retries after letting it record, so that no failed try-lock is recorded
// where the trace shows the lock free. (Blocking in the real call at the
// first failure made lock convoys: each thread woke owning the lock while
// the other held the token, two context switches per critical section.)
//
#include "real.h"
#include "state.h"

#include <errno.h>
#include <sched.h>
#include <time.h>

namespace racepredict::rt {

uint32_t gPendingAcquires[1u << kPendingBits];

namespace {

/// Lock objects may be volatile (pthread_spinlock_t is a volatile int).
uint64_t objKey(const volatile void *obj) {
  return reinterpret_cast<uintptr_t>(obj);
}

void recordObj(ThreadState *ts, unsigned kind, const volatile void *obj,
               uint32_t loc) {
  if (stopped())
    return;
  uint64_t ops[1] = {objKey(obj)};
  recordSimple(ts, kind, loc, ops, 1);
  if (kind == RP_TRYFAIL)
    ts->readsSinceBranch = true; // branches depend on failed try-locks
}

/// Before the real blocking call of an acquisition: from the moment that
/// call takes `obj`, this thread owns it without having recorded it
/// (ownedUnrecorded). Announced before the call, since afterwards comes
/// too late for a try-lock that fails in between.
void announceAcquiring(const volatile void *obj) {
  if (ThreadState *ts = tlsState)
    __atomic_store_n(&ts->acquiring, objKey(obj), __ATOMIC_SEQ_CST);
}

/// Records the acquisition `kind` (operands `ops`, the object's key if
/// none) that a blocking call returning `r` (0: acquired) made without the
/// token; the object counts as pending until then (file comment).
int acquiredLate(int r, unsigned kind, const volatile void *obj, uint32_t loc,
                 const uint64_t *ops = nullptr, int n = 1) {
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
bool ownedUnrecorded(pthread_mutex_t *m) {
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
/// operands `ops` when given. Replay gates before the real call instead
/// (its turnstile decides who gets it).
template <typename L, typename T, typename B>
int acquire(L *l, T tryFn, B blockFn, unsigned kind, bool deadlockable,
            uint32_t loc, const uint64_t *ops = nullptr, int n = 1) {
  if (RP_UNLIKELY(gReplayOn)) {
    preBlock(l, kind, loc, deadlockable);
    return acquiredLate(postBlock(blockFn(l)), kind, l, loc, ops, n);
  }
  if (ThreadState *ts = enter(kRecSync)) {
    int r = tryWithToken(ts, l, tryFn);
    if (r == 0 || r == EOWNERDEAD) { // EOWNERDEAD: a robust mutex, acquired
      if (ops && !stopped())
        recordSimple(ts, kind, loc, ops, n);
      else if (!ops)
        recordObj(ts, kind, l, loc);
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
  return acquiredLate(r, kind, l, loc, ops, n);
}

template <typename L, typename T, typename B>
int lockBlocking(L *l, T tryFn, B lockFn, unsigned kind, uint32_t loc) {
  return acquire(l, tryFn, lockFn, kind, true, loc);
}

/// A try-lock, with the token. A failure while another thread owns the lock
/// without having recorded it yet waits for that record (it needs the
/// token, which this thread hands on meanwhile; bounded by a second in
/// case that thread is stopped).
template <typename L, typename F>
int tryAcquire(L *l, F tryFn, unsigned kind, uint32_t loc) {
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
    recordObj(ts, kind, l, loc);
  } else if (r == EBUSY) {
    recordObj(ts, RP_TRYFAIL, l, loc);
    // The owner may wait for the token to release the lock: a thread
    // spinning on try-locks with the token would hold it up for a whole
    // quantum per round (natively both run at once).
    leaveToWaiters(ts);
    return r;
  }
  leave(ts);
  return r;
}

/// A timed lock: tried with the token first, else waits without it. One
/// that timed out is re-tried once as a try-lock with the token: if that
/// fails the owner provably holds the lock there (TryFail); if it succeeds
/// the caller gets the lock (as if it arrived at the deadline).
template <typename L, typename T, typename B>
int lockTimed(L *l, T tryFn, B timedFn, unsigned kind, uint32_t loc) {
  int r = acquire(l, tryFn, timedFn, kind, false, loc);
  if (r != ETIMEDOUT)
    return r;
  int r2 = tryAcquire(l, tryFn, kind, loc);
  return r2 == 0 ? 0 : r;
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
template <typename L, typename F> int release(L *l, F unlockFn, uint32_t loc) {
  return callRecorded(l, unlockFn, RP_RELEASE, loc);
}

/// sem_wait / sem_timedwait: an acquisition, tried with sem_trywait.
template <typename W>
int semWait(sem_t *s, W waitFn, bool deadlockable, uint32_t loc) {
  auto tryFn = [](sem_t *x) {
    int saved = errno; // a failed try must not show in the caller's errno
    int r = real_sem_trywait()(x) == 0 ? 0 : EBUSY;
    errno = saved;
    return r;
  };
  return acquire(s, tryFn, waitFn, RP_SEMWAIT, deadlockable, loc);
}

/// Barrier -> participant count, from pthread_barrier_init.
constexpr unsigned kBarrierSlots = 1024;
struct BarrierSlot {
  const void *b;
  unsigned count;
};
BarrierSlot gBarriers[kBarrierSlots];
volatile uint32_t gBarrierLock;

unsigned barrierSlot(const void *b) {
  return static_cast<unsigned>((key(b) >> 3) * 0x9E3779B97F4A7C15ull >> 54) &
         (kBarrierSlots - 1);
}

void setBarrierCount(const void *b, unsigned count) {
  spinLock(&gBarrierLock);
  for (unsigned i = barrierSlot(b), n = 0; n < kBarrierSlots;
       i = (i + 1) % kBarrierSlots, ++n)
    if (!gBarriers[i].b || gBarriers[i].b == b) {
      gBarriers[i].b = b;
      gBarriers[i].count = count;
      break;
    }
  spinUnlock(&gBarrierLock);
}

unsigned barrierCount(const void *b) {
  unsigned c = 0;
  spinLock(&gBarrierLock);
  for (unsigned i = barrierSlot(b), n = 0; n < kBarrierSlots && gBarriers[i].b;
       i = (i + 1) % kBarrierSlots, ++n)
    if (gBarriers[i].b == b) {
      c = gBarriers[i].count;
      break;
    }
  spinUnlock(&gBarrierLock);
  return c;
}

} // namespace

void resetLockStateInChild() {
  for (uint32_t &p : gPendingAcquires)
    p = 0;
  gBarrierLock = 0;
}

int lockRecorded(pthread_mutex_t *m, unsigned kind, uint32_t loc,
                 const uint64_t *ops, int n) {
  return acquire(m, real_pthread_mutex_trylock(), real_pthread_mutex_lock(),
                 kind, true, loc, ops, n);
}

} // namespace racepredict::rt

using namespace racepredict::rt;

extern "C" {

// --- mutexes ---------------------------------------------------------------
int __racepredict_pthread_mutex_lock(pthread_mutex_t *m, uint32_t loc) {
  return lockBlocking(m, real_pthread_mutex_trylock(),
                      real_pthread_mutex_lock(), RP_ACQUIRE, loc);
}
int __racepredict_pthread_mutex_trylock(pthread_mutex_t *m, uint32_t loc) {
  return tryAcquire(m, real_pthread_mutex_trylock(), RP_ACQUIRE, loc);
}
int __racepredict_pthread_mutex_timedlock(pthread_mutex_t *m,
                                          const struct timespec *t,
                                          uint32_t loc) {
  auto timed = [t](pthread_mutex_t *x) {
    return real_pthread_mutex_timedlock()(x, t);
  };
  return lockTimed(m, real_pthread_mutex_trylock(), timed, RP_ACQUIRE, loc);
}
int __racepredict_pthread_mutex_unlock(pthread_mutex_t *m, uint32_t loc) {
  return release(m, real_pthread_mutex_unlock(), loc);
}

// --- spin locks --------------------------------------------------------------
int __racepredict_pthread_spin_lock(pthread_spinlock_t *l, uint32_t loc) {
  return lockBlocking(l, real_pthread_spin_trylock(), real_pthread_spin_lock(),
                      RP_ACQUIRE, loc);
}
int __racepredict_pthread_spin_trylock(pthread_spinlock_t *l, uint32_t loc) {
  return tryAcquire(l, real_pthread_spin_trylock(), RP_ACQUIRE, loc);
}
int __racepredict_pthread_spin_unlock(pthread_spinlock_t *l, uint32_t loc) {
  return release(l, real_pthread_spin_unlock(), loc);
}

// --- read-write locks
// ----------------------------------------------------------
int __racepredict_pthread_rwlock_rdlock(pthread_rwlock_t *l, uint32_t loc) {
  return lockBlocking(l, real_pthread_rwlock_tryrdlock(),
                      real_pthread_rwlock_rdlock(), RP_RACQUIRE, loc);
}
int __racepredict_pthread_rwlock_wrlock(pthread_rwlock_t *l, uint32_t loc) {
  return lockBlocking(l, real_pthread_rwlock_trywrlock(),
                      real_pthread_rwlock_wrlock(), RP_ACQUIRE, loc);
}
int __racepredict_pthread_rwlock_tryrdlock(pthread_rwlock_t *l, uint32_t loc) {
  return tryAcquire(l, real_pthread_rwlock_tryrdlock(), RP_RACQUIRE, loc);
}
int __racepredict_pthread_rwlock_trywrlock(pthread_rwlock_t *l, uint32_t loc) {
  return tryAcquire(l, real_pthread_rwlock_trywrlock(), RP_ACQUIRE, loc);
}
int __racepredict_pthread_rwlock_timedrdlock(pthread_rwlock_t *l,
                                             const struct timespec *t,
                                             uint32_t loc) {
  auto timed = [t](pthread_rwlock_t *x) {
    return real_pthread_rwlock_timedrdlock()(x, t);
  };
  return lockTimed(l, real_pthread_rwlock_tryrdlock(), timed, RP_RACQUIRE, loc);
}
int __racepredict_pthread_rwlock_timedwrlock(pthread_rwlock_t *l,
                                             const struct timespec *t,
                                             uint32_t loc) {
  auto timed = [t](pthread_rwlock_t *x) {
    return real_pthread_rwlock_timedwrlock()(x, t);
  };
  return lockTimed(l, real_pthread_rwlock_trywrlock(), timed, RP_ACQUIRE, loc);
}
int __racepredict_pthread_rwlock_unlock(pthread_rwlock_t *l, uint32_t loc) {
  return release(l, real_pthread_rwlock_unlock(), loc);
}

// --- barriers
// ------------------------------------------------------------------
int __racepredict_pthread_barrier_init(pthread_barrier_t *b,
                                       const pthread_barrierattr_t *a,
                                       unsigned count, uint32_t) {
  int r = real_pthread_barrier_init()(b, a, count);
  if (r == 0)
    setBarrierCount(b, count);
  return r;
}
int __racepredict_pthread_barrier_destroy(pthread_barrier_t *b, uint32_t) {
  return real_pthread_barrier_destroy()(b);
}
int __racepredict_pthread_barrier_wait(pthread_barrier_t *b, uint32_t loc) {
  // The arrival records nothing: this thread's events so far were recorded
  // with the token, before it is handed on here, hence before any
  // departure (which needs the token after the last arrival).
  if (RP_UNLIKELY(gReplayOn))
    replayBarrierArrive(b, loc);
  else
    beforeBlocking();
  noteBlocked(RP_BARRIER, key(b), loc);
  int r = real_pthread_barrier_wait()(b);
  noteUnblocked();
  if (RP_UNLIKELY(gReplayOn))
    replayAfterBlocking();
  if (r == 0 || r == PTHREAD_BARRIER_SERIAL_THREAD) {
    // The departure: with exactly `count` participants, a thread
    // leaves generation k before it can arrive at k+1, so departures of one
    // generation are consecutive among the barrier's events.
    uint64_t ops[2] = {key(b), barrierCount(b)};
    recordSync(RP_BARRIER, loc, ops, 2);
  }
  return r;
}

// --- semaphores
// ------------------------------------------------------------------
int __racepredict_sem_init(sem_t *s, int pshared, unsigned value,
                           uint32_t loc) {
  int r = real_sem_init()(s, pshared, value);
  if (r == 0) {
    uint64_t ops[2] = {key(s), value};
    recordSync(RP_SEMINIT, loc, ops, 2);
  }
  return r;
}
int __racepredict_sem_post(sem_t *s, uint32_t loc) {
  // With the token: no wait can record its return before this post.
  return callRecorded(s, real_sem_post(), RP_SEMPOST, loc);
}
int __racepredict_sem_wait(sem_t *s, uint32_t loc) {
  auto wait = [](sem_t *x) { return real_sem_wait()(x); };
  return semWait(s, wait, true, loc);
}
int __racepredict_sem_trywait(sem_t *s, uint32_t loc) {
  // A failed trywait records nothing: it changes no state (see
  // docs/recording.md for what that means for branch dependences).
  if (RP_UNLIKELY(gReplayOn)) {
    preBlock(s, RP_SEMWAIT, loc, false);
    return acquiredLate(postBlock(real_sem_trywait()(s)), RP_SEMWAIT, s, loc);
  }
  return callRecorded(s, real_sem_trywait(), RP_SEMWAIT, loc);
}
int __racepredict_sem_timedwait(sem_t *s, const struct timespec *t,
                                uint32_t loc) {
  auto wait = [t](sem_t *x) { return real_sem_timedwait()(x, t); };
  return semWait(s, wait, false, loc);
}

} // extern "C"
