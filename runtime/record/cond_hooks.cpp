//===- record/cond_hooks.cpp - Condition variables with exact wake-ups ----===//
//
// pthread_cond_signal does not say whom it woke, but the trace must match
// every wait to the notify that woke it. So the runtime decides: waiters
// register (while still holding the mutex) in a list; a notify takes its
// ticket and marks the oldest unmarked waiter of the condition (all of them
// for broadcast), then broadcasts for real; a waiter returns only once it is
// marked (or its deadline passed) and otherwise waits again. Each wake-up the
// program sees is thus caused by the notify it is recorded with, a
// schedule the real condition variable could also have produced. Waits run
// in 10 ms slices so that a notify that slips in between a waiter's check and
// its sleep (notifier not holding the mutex) cannot be lost.
//
#include "real.h"
#include "state.h"

#include <errno.h>

namespace racepredict::rt {
namespace {

/// Marks: 0 = not notified yet, kUnrecorded = notified by a notify that was
/// not recorded, else notify ticket + 1.
constexpr uint64_t kUnrecorded = ~0ull;

struct Waiter {
  const pthread_cond_t *cond;
  uint64_t mark;
  Waiter *prev, *next;
};
Waiter *gHead, *gTail;
volatile uint32_t gCondLock;

void timespecAdd(struct timespec &t, long ns) {
  t.tv_nsec += ns;
  while (t.tv_nsec >= 1000000000L) {
    t.tv_nsec -= 1000000000L;
    ++t.tv_sec;
  }
}
bool before(const struct timespec &a, const struct timespec &b) {
  return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

int condWait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk,
             const struct timespec *deadline, uint32_t loc) {
  if (RP_UNLIKELY(gReplayOn))
    return replayCondWait(c, m, clk, deadline, loc);
  Waiter w = {c, 0, nullptr, nullptr};
  spinLock(&gCondLock);
  w.prev = gTail;
  (gTail ? gTail->next : gHead) = &w;
  gTail = &w;
  spinUnlock(&gCondLock);
  int r = 0;
  for (;;) {
    if (__atomic_load_n(&w.mark, __ATOMIC_ACQUIRE))
      break;
    struct timespec now, slice;
    clock_gettime(clk, &now);
    if (deadline && !before(now, *deadline)) {
      r = ETIMEDOUT;
      break;
    }
    slice = now;
    timespecAdd(slice, 10000000L);
    if (deadline && before(*deadline, slice))
      slice = *deadline;
    int e = real_pthread_cond_clockwait()(c, m, clk, &slice);
    if (e != 0 && e != ETIMEDOUT) {
      r = e;
      break;
    }
  }
  spinLock(&gCondLock);
  uint64_t mark = w.mark;
  (w.prev ? w.prev->next : gHead) = w.next;
  (w.next ? w.next->prev : gTail) = w.prev;
  spinUnlock(&gCondLock);
  if (mark)
    r = 0; // a notify reached us even if the deadline passed meanwhile
  if (r == 0 || r == ETIMEDOUT) {
    // The mutex is held again: the wait's return half, ticketed now.
    uint64_t ops[3] = {key(c), key(m), mark == kUnrecorded ? 0 : mark};
    recordSync(RP_WAIT, loc, ops, 3);
  }
  return r;
}

int notify(pthread_cond_t *c, bool all, uint32_t loc) {
  if (RP_UNLIKELY(gReplayOn))
    return replayNotify(c, all, loc);
  ThreadState *ts = enter(kRecSync);
  spinLock(&gCondLock);
  uint64_t seq = ts ? takeSeq() : 0;
  bool woke = false;
  for (Waiter *w = gHead; w; w = w->next) {
    if (w->cond != c || w->mark)
      continue;
    __atomic_store_n(&w->mark, ts ? seq + 1 : kUnrecorded, __ATOMIC_RELEASE);
    woke = true;
    if (!all)
      break;
  }
  spinUnlock(&gCondLock);
  if (ts) {
    if (!stopped()) {
      uint64_t ops[1] = {key(c)};
      recordSimple(ts, seq, all ? RP_BROADCAST : RP_SIGNAL, loc, ops, 1);
    }
    leave(ts);
  }
  // Broadcast even for a signal when we chose a waiter: only the marked one
  // returns, the others go back to sleep. Without registered waiters the
  // real call still serves waiters in uninstrumented code.
  if (woke || all)
    return real_pthread_cond_broadcast()(c);
  return real_pthread_cond_signal()(c);
}

} // namespace
} // namespace racepredict::rt

using namespace racepredict::rt;

extern "C" {

int __racepredict_pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m,
                                    uint32_t loc) {
  return condWait(c, m, CLOCK_MONOTONIC, nullptr, loc);
}
int __racepredict_pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                         const struct timespec *t,
                                         uint32_t loc) {
  // Assumes the default CLOCK_REALTIME condition attribute (documented).
  return condWait(c, m, CLOCK_REALTIME, t, loc);
}
int __racepredict_pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m,
                                         clockid_t clk,
                                         const struct timespec *t,
                                         uint32_t loc) {
  return condWait(c, m, clk, t, loc);
}
int __racepredict_pthread_cond_signal(pthread_cond_t *c, uint32_t loc) {
  return notify(c, false, loc);
}
int __racepredict_pthread_cond_broadcast(pthread_cond_t *c, uint32_t loc) {
  return notify(c, true, loc);
}

} // extern "C"
