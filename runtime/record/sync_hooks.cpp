//===- record/sync_hooks.cpp - Mutexes, spin/rw locks, barriers, semaphores
//===//
//
// Ticket placement (docs/recording.md): acquire-like events take their ticket
// after the real call succeeded, release-like events before the real call.
// Releases and try-locks additionally run under the striped lock of the lock
// object, so a failed try-lock is ticketed while its owner still holds the
// lock (the owner's release ticket cannot be taken in between).
//
#include "real.h"
#include "state.h"

#include <errno.h>

namespace racepredict::rt {
namespace {

/// Lock objects may be volatile (pthread_spinlock_t is a volatile int).
uint64_t objKey(const volatile void *obj) {
  return reinterpret_cast<uintptr_t>(obj);
}

void recordObj(ThreadState *ts, uint64_t seq, unsigned kind,
               const volatile void *obj, uint32_t loc) {
  if (stopped())
    return;
  uint64_t ops[1] = {objKey(obj)};
  recordSimple(ts, seq, kind, loc, ops, 1);
  if (kind == RP_TRYFAIL)
    ts->readsSinceBranch = true; // branches depend on failed try-locks
}

/// Acquire after a blocking call that returned `r`.
int acquired(int r, unsigned kind, const volatile void *obj, uint32_t loc) {
  if (r != 0)
    return r;
  uint64_t ops[1] = {objKey(obj)};
  recordSync(kind, loc, ops, 1);
  return r;
}

template <typename L, typename F>
int tryAcquire(L *l, F tryFn, unsigned kind, uint32_t loc) {
  ThreadState *ts = enter(kRecSync);
  if (!ts)
    return tryFn(l);
  volatile uint32_t *s = stripeFor(reinterpret_cast<uintptr_t>(l));
  spinLock(s);
  int r = tryFn(l);
  uint64_t seq = takeSeq();
  spinUnlock(s);
  if (r == 0)
    recordObj(ts, seq, kind, l, loc);
  else if (r == EBUSY)
    recordObj(ts, seq, RP_TRYFAIL, l, loc);
  leave(ts);
  return r;
}

/// A timed lock that timed out is re-tried once under the stripe lock: if
/// that fails the owner provably holds the lock at the ticket (TryFail); if
/// it succeeds the caller gets the lock (as if it arrived at the deadline).
template <typename L, typename F>
int timedOut(int r, L *l, F tryFn, unsigned kind, uint32_t loc) {
  if (r == 0)
    return acquired(r, kind, l, loc);
  if (r != ETIMEDOUT)
    return r;
  ThreadState *ts = enter(kRecSync);
  if (!ts)
    return r;
  volatile uint32_t *s = stripeFor(reinterpret_cast<uintptr_t>(l));
  spinLock(s);
  int r2 = tryFn(l);
  uint64_t seq = takeSeq();
  spinUnlock(s);
  recordObj(ts, seq, r2 == 0 ? kind : unsigned(RP_TRYFAIL), l, loc);
  leave(ts);
  return r2 == 0 ? 0 : r;
}

template <typename L, typename F> int release(L *l, F unlockFn, uint32_t loc) {
  ThreadState *ts = enter(kRecSync);
  if (!ts)
    return unlockFn(l);
  volatile uint32_t *s = stripeFor(reinterpret_cast<uintptr_t>(l));
  spinLock(s);
  uint64_t seq = takeSeq();
  int r = unlockFn(l);
  spinUnlock(s);
  if (r == 0)
    recordObj(ts, seq, RP_RELEASE, l, loc);
  leave(ts);
  return r;
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
} // namespace racepredict::rt

using namespace racepredict::rt;

extern "C" {

// --- mutexes ---------------------------------------------------------------
int __racepredict_pthread_mutex_lock(pthread_mutex_t *m, uint32_t loc) {
  preBlock(m, RP_ACQUIRE, loc, true);
  return acquired(postBlock(real_pthread_mutex_lock()(m)), RP_ACQUIRE, m, loc);
}
int __racepredict_pthread_mutex_trylock(pthread_mutex_t *m, uint32_t loc) {
  return tryAcquire(m, real_pthread_mutex_trylock(), RP_ACQUIRE, loc);
}
int __racepredict_pthread_mutex_timedlock(pthread_mutex_t *m,
                                          const struct timespec *t,
                                          uint32_t loc) {
  preBlock(m, RP_ACQUIRE, loc, false);
  return timedOut(postBlock(real_pthread_mutex_timedlock()(m, t)), m,
                  real_pthread_mutex_trylock(), RP_ACQUIRE, loc);
}
int __racepredict_pthread_mutex_unlock(pthread_mutex_t *m, uint32_t loc) {
  return release(m, real_pthread_mutex_unlock(), loc);
}

// --- spin locks --------------------------------------------------------------
int __racepredict_pthread_spin_lock(pthread_spinlock_t *l, uint32_t loc) {
  preBlock(l, RP_ACQUIRE, loc, true);
  return acquired(postBlock(real_pthread_spin_lock()(l)), RP_ACQUIRE, l, loc);
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
  preBlock(l, RP_RACQUIRE, loc, true);
  return acquired(postBlock(real_pthread_rwlock_rdlock()(l)), RP_RACQUIRE, l,
                  loc);
}
int __racepredict_pthread_rwlock_wrlock(pthread_rwlock_t *l, uint32_t loc) {
  preBlock(l, RP_ACQUIRE, loc, true);
  return acquired(postBlock(real_pthread_rwlock_wrlock()(l)), RP_ACQUIRE, l,
                  loc);
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
  preBlock(l, RP_RACQUIRE, loc, false);
  return timedOut(postBlock(real_pthread_rwlock_timedrdlock()(l, t)), l,
                  real_pthread_rwlock_tryrdlock(), RP_RACQUIRE, loc);
}
int __racepredict_pthread_rwlock_timedwrlock(pthread_rwlock_t *l,
                                             const struct timespec *t,
                                             uint32_t loc) {
  preBlock(l, RP_ACQUIRE, loc, false);
  return timedOut(postBlock(real_pthread_rwlock_timedwrlock()(l, t)), l,
                  real_pthread_rwlock_trywrlock(), RP_ACQUIRE, loc);
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
  if (RP_UNLIKELY(gReplayOn))
    replayBarrierArrive(b, loc);
  else
    recordMark(); // the arrival: before every departure's ticket
  int r = real_pthread_barrier_wait()(b);
  if (RP_UNLIKELY(gReplayOn))
    replayAfterBlocking();
  if (r == 0 || r == PTHREAD_BARRIER_SERIAL_THREAD) {
    // The departure ticket: with exactly `count` participants, a thread
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
  ThreadState *ts = enter(kRecSync);
  if (!ts)
    return real_sem_post()(s);
  uint64_t seq = takeSeq();
  int r = real_sem_post()(s);
  if (r == 0)
    recordObj(ts, seq, RP_SEMPOST, s, loc);
  leave(ts);
  return r;
}
int __racepredict_sem_wait(sem_t *s, uint32_t loc) {
  preBlock(s, RP_SEMWAIT, loc, true);
  return acquired(postBlock(real_sem_wait()(s)), RP_SEMWAIT, s, loc);
}
int __racepredict_sem_trywait(sem_t *s, uint32_t loc) {
  // A failed trywait records nothing: it changes no state (see
  // docs/recording.md for what that means for branch dependences).
  preBlock(s, RP_SEMWAIT, loc, false);
  return acquired(postBlock(real_sem_trywait()(s)), RP_SEMWAIT, s, loc);
}
int __racepredict_sem_timedwait(sem_t *s, const struct timespec *t,
                                uint32_t loc) {
  preBlock(s, RP_SEMWAIT, loc, false);
  return acquired(postBlock(real_sem_timedwait()(s, t)), RP_SEMWAIT, s, loc);
}

} // extern "C"
