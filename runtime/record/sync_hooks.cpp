//===- record/sync_hooks.cpp - Mutexes, spin/rw locks, barriers, semaphores
//===//
//
// Every event is recorded while the thread holds the recording token
// (docs/recording.md), following lock_protocol.h for acquisitions and
// releases.
//
#include "lock_protocol.h"
#include "real.h"

#include <errno.h>
#include <sched.h>
#include <time.h>

namespace racepredict::rt {

uint32_t gPendingAcquires[1u << kPendingBits];

namespace {

template <typename L, typename T, typename B>
int lockBlocking(L *l, T tryFn, B lockFn, unsigned kind, uint32_t loc) {
  return acquire(l, tryFn, lockFn, kind, true, loc);
}

/// A timed lock: tried with the token first, else waits without it. One
/// that timed out is re-tried once as a try-lock with the token: if that
/// fails the owner provably holds the lock there (TryFail); if it succeeds
/// the caller gets the lock (as if it arrived at the deadline).
template <typename L, typename T, typename B>
int lockTimed(L *l, T tryFn, B timedFn, unsigned kind, const Deadline &dl,
              uint32_t loc) {
  int r = acquire(l, tryFn, timedFn, kind, false, loc, nullptr, 1, &dl);
  if (r != ETIMEDOUT)
    return r;
  int r2 = tryAcquire(l, tryFn, kind, loc, &dl);
  return r2 == 0 ? 0 : r;
}

template <typename L, typename F> int release(L *l, F unlockFn, uint32_t loc) {
  return callRecorded(l, unlockFn, RP_RELEASE, loc);
}

/// sem_wait / sem_timedwait / sem_clockwait (deadline `dl`): an
/// acquisition, tried with sem_trywait.
template <typename W>
int semWait(sem_t *s, W waitFn, bool deadlockable, uint32_t loc,
            const Deadline *dl = nullptr) {
  auto tryFn = [](sem_t *x) {
    int saved = errno; // a failed try must not show in the caller's errno
    int r = real_sem_trywait()(x) == 0 ? 0 : EBUSY;
    errno = saved;
    return r;
  };
  return acquire(s, tryFn, waitFn, RP_SEMWAIT, deadlockable, loc, nullptr, 1,
                 dl);
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
                 const uint64_t *ops, int n, const Deadline *dl) {
  return acquire(m, real_pthread_mutex_trylock(), real_pthread_mutex_lock(),
                 kind, true, loc, ops, n, dl);
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
  return tryAcquire(m, real_pthread_mutex_trylock(), kTryAcquire, loc);
}
int __racepredict_pthread_mutex_timedlock(pthread_mutex_t *m,
                                          const struct timespec *t,
                                          uint32_t loc) {
  auto timed = [t](pthread_mutex_t *x) {
    return real_pthread_mutex_timedlock()(x, t);
  };
  return lockTimed(m, real_pthread_mutex_trylock(), timed, RP_ACQUIRE,
                   Deadline{CLOCK_REALTIME, t}, loc);
}
int __racepredict_pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t k,
                                          const struct timespec *t,
                                          uint32_t loc) {
  auto timed = [k, t](pthread_mutex_t *x) {
    return real_pthread_mutex_clocklock()(x, k, t);
  };
  return lockTimed(m, real_pthread_mutex_trylock(), timed, RP_ACQUIRE,
                   Deadline{k, t}, loc);
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
  return tryAcquire(l, real_pthread_spin_trylock(), kTryAcquire, loc);
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
  return tryAcquire(l, real_pthread_rwlock_tryrdlock(),
                    RP_RACQUIRE | RP_TRY_ACQUIRE, loc);
}
int __racepredict_pthread_rwlock_trywrlock(pthread_rwlock_t *l, uint32_t loc) {
  return tryAcquire(l, real_pthread_rwlock_trywrlock(), kTryAcquire, loc);
}
int __racepredict_pthread_rwlock_timedrdlock(pthread_rwlock_t *l,
                                             const struct timespec *t,
                                             uint32_t loc) {
  auto timed = [t](pthread_rwlock_t *x) {
    return real_pthread_rwlock_timedrdlock()(x, t);
  };
  return lockTimed(l, real_pthread_rwlock_tryrdlock(), timed, RP_RACQUIRE,
                   Deadline{CLOCK_REALTIME, t}, loc);
}
int __racepredict_pthread_rwlock_clockrdlock(pthread_rwlock_t *l, clockid_t k,
                                             const struct timespec *t,
                                             uint32_t loc) {
  auto timed = [k, t](pthread_rwlock_t *x) {
    return real_pthread_rwlock_clockrdlock()(x, k, t);
  };
  return lockTimed(l, real_pthread_rwlock_tryrdlock(), timed, RP_RACQUIRE,
                   Deadline{k, t}, loc);
}
int __racepredict_pthread_rwlock_timedwrlock(pthread_rwlock_t *l,
                                             const struct timespec *t,
                                             uint32_t loc) {
  auto timed = [t](pthread_rwlock_t *x) {
    return real_pthread_rwlock_timedwrlock()(x, t);
  };
  return lockTimed(l, real_pthread_rwlock_trywrlock(), timed, RP_ACQUIRE,
                   Deadline{CLOCK_REALTIME, t}, loc);
}
int __racepredict_pthread_rwlock_clockwrlock(pthread_rwlock_t *l, clockid_t k,
                                             const struct timespec *t,
                                             uint32_t loc) {
  auto timed = [k, t](pthread_rwlock_t *x) {
    return real_pthread_rwlock_clockwrlock()(x, k, t);
  };
  return lockTimed(l, real_pthread_rwlock_trywrlock(), timed, RP_ACQUIRE,
                   Deadline{k, t}, loc);
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
    return acquiredLate(postBlock(real_sem_trywait()(s)),
                        RP_SEMWAIT | RP_TRY_ACQUIRE, s, loc);
  }
  return callRecorded(s, real_sem_trywait(), RP_SEMWAIT | RP_TRY_ACQUIRE, loc);
}
int __racepredict_sem_timedwait(sem_t *s, const struct timespec *t,
                                uint32_t loc) {
  auto wait = [t](sem_t *x) { return real_sem_timedwait()(x, t); };
  Deadline dl{CLOCK_REALTIME, t};
  return semWait(s, wait, false, loc, &dl);
}
int __racepredict_sem_clockwait(sem_t *s, clockid_t k, const struct timespec *t,
                                uint32_t loc) {
  auto wait = [k, t](sem_t *x) { return real_sem_clockwait()(x, k, t); };
  Deadline dl{k, t};
  return semWait(s, wait, false, loc, &dl);
}

} // extern "C"
