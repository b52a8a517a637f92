//===- record/cond_hooks.cpp - Condition variables with exact wake-ups ----===//
//
// pthread_cond_signal does not say whom it woke, but the trace must match
// every wait to the notify that woke it. So the runtime implements the
// condition variable itself and decides: a waiter registers (still holding
// the mutex) in a list, releases the mutex and sleeps on a futex word of its
// own; a notify (recorded with the token) marks the oldest unmarked waiter
// of the condition (all of them for broadcast) and wakes exactly that futex.
// The waiter re-acquires the mutex and records the wait with the notify that
// marked it. Each wake-up is thus caused by the notify it is recorded with,
// and the notify lies between the waiter's registration (its release half)
// and its return: a schedule a real condition variable could have produced.
// Registration happens under the mutex and marking under the list lock, and
// the futex compares the word before sleeping, so no wake-up is lost;
// waking only the chosen waiter avoids the thundering herd that marking +
// a real broadcast would cause (measured: 6x the futex calls on a
// producer/consumer queue).
//
#include "deadline.h"
#include "real.h"
#include "state.h"

#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace racepredict::rt {
namespace {

/// Marks: 0 = not notified yet, kUnrecorded = notified by a notify that was
/// not recorded, else notify ticket + 1.
constexpr uint64_t kUnrecorded = ~0ull;

struct Waiter {
  const pthread_cond_t *cond;
  uint64_t mark;
  uint32_t word; ///< futex word: 0 asleep, 1 marked
  Waiter *prev, *next;
};
Waiter *gHead, *gTail;
volatile uint32_t gCondLock;

/// Sleeps while `*word` is 0, until the absolute `deadline` on `clk` (none
/// if null). Returns ETIMEDOUT when the deadline passed, else 0.
int futexSleep(uint32_t *word, clockid_t clk, const struct timespec *deadline) {
  int op = FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG;
  if (deadline && clk == CLOCK_REALTIME)
    op |= FUTEX_CLOCK_REALTIME;
  long r = syscall(SYS_futex, word, op, 0u, deadline, nullptr,
                   FUTEX_BITSET_MATCH_ANY);
  return r != 0 && errno == ETIMEDOUT ? ETIMEDOUT : 0;
}

int condWait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk,
             const struct timespec *deadline, uint32_t loc) {
  if (RP_UNLIKELY(gReplayOn))
    return replayCondWait(c, m, clk, deadline, loc);
  // The release half records no event, but what this thread did before it
  // must precede the notify that wakes it and the next owner of the mutex:
  // registering and unlocking with the token, and handing it on only then,
  // orders it so (both need the token after this to record anything).
  ThreadState *ts = enter(kRecSync);
  Waiter w = {c, 0, 0, nullptr, nullptr};
  spinLock(&gCondLock);
  w.prev = gTail;
  (gTail ? gTail->next : gHead) = &w;
  gTail = &w;
  spinUnlock(&gCondLock);
  // The release half: from here a notify may mark us.
  int r = real_pthread_mutex_unlock()(m);
  if (ts) {
    if (r == 0 && !stopped())
      reserveWaitRelease(ts, key(m), loc);
    leaveToBlock(ts);
  } else {
    beforeBlocking();
  }
  if (r != 0) {
    spinLock(&gCondLock);
    (w.prev ? w.prev->next : gHead) = w.next;
    (w.next ? w.next->prev : gTail) = w.prev;
    spinUnlock(&gCondLock);
    return r; // EPERM: the caller did not hold the mutex
  }
  if (!deadline)
    noteBlocked(RP_WAIT, key(c), loc);
  while (!__atomic_load_n(&w.word, __ATOMIC_ACQUIRE))
    if (futexSleep(&w.word, clk, deadline) == ETIMEDOUT) {
      r = ETIMEDOUT;
      break;
    }
  noteUnblocked();
  // Unlinked under the list lock: a notifier touches `w` only while holding
  // it, so the frame may go away once we are out of the list.
  spinLock(&gCondLock);
  uint64_t mark = w.mark;
  (w.prev ? w.prev->next : gHead) = w.next;
  (w.next ? w.next->prev : gTail) = w.prev;
  spinUnlock(&gCondLock);
  if (mark)
    r = 0; // a notify reached us even if the deadline passed meanwhile
  // The return half: the mutex again, taken like pthread_mutex_lock does,
  // and the wait recorded with the notify that woke us.
  uint64_t ops[3] = {key(c), key(m), mark == kUnrecorded ? 0 : mark};
  Deadline dl{clk, deadline}; // whether it returns after it (deadline.h)
  lockRecorded(m, RP_WAIT, loc, ops, 3, deadline ? &dl : nullptr);
  return r;
}

int notify(pthread_cond_t *c, bool all, uint32_t loc) {
  if (RP_UNLIKELY(gReplayOn))
    return replayNotify(c, all, loc);
  ThreadState *ts = enter(kRecSync);
  // The notify's record takes the thread's next seq (it holds the token).
  bool recorded = ts && !stopped();
  uint64_t seq = recorded ? ts->nextSeq : 0;
  spinLock(&gCondLock);
  for (Waiter *w = gHead; w; w = w->next) {
    if (w->cond != c || w->mark)
      continue;
    __atomic_store_n(&w->mark, recorded ? seq + 1 : kUnrecorded,
                     __ATOMIC_RELEASE);
    __atomic_store_n(&w->word, 1, __ATOMIC_RELEASE);
    syscall(SYS_futex, &w->word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, nullptr,
            nullptr, 0);
    if (!all)
      break;
  }
  spinUnlock(&gCondLock);
  if (ts) {
    if (recorded) {
      uint64_t ops[1] = {key(c)};
      recordSimple(ts, all ? RP_BROADCAST : RP_SIGNAL, loc, ops, 1);
    }
    leave(ts);
  }
  return 0;
}

} // namespace

void resetCondWaitersInChild() {
  // The waiters were other threads of the parent: none wait here.
  gHead = gTail = nullptr;
  gCondLock = 0;
}

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
