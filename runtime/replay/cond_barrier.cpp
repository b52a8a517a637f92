//===- replay/cond_barrier.cpp - Two-step events under a schedule ---------===//
//
// A wait is two steps of the schedule (docs/semantics.md): its release half
// and its return. Under replay the runtime implements the wait itself
// instead of calling pthread_cond_wait, because the real call re-acquires
// the mutex when *it* decides to: the waiter registers (still holding the
// mutex, so no notify can be lost), takes the release step, unlocks the
// mutex, and sleeps until its return step is the head — or, once the
// schedule is over, until a notify marks it. Returning without a real
// wake-up is a spurious wake-up, which POSIX allows and every correct
// program tolerates. Notifies mark the waits the witness says they woke
// (the schedule's `wake` lines); after the schedule, the oldest waiter
// (signal) or all of them (broadcast), as the recorder does.
//
// A barrier wait is its arrival step, the real pthread_barrier_wait (every
// arrival precedes every departure in the schedule), then its departure.
//
#include "replay_state.h"

#include "../record/deadline.h"
#include "../record/real.h"
#include "../record/state.h"

#include <errno.h>
#include <time.h>

namespace racepredict::rt {
namespace {

struct Waiter {
  const pthread_cond_t *cond;
  uint32_t slot; ///< schedule thread, kNoThread if none
  uint32_t ordinal;
  volatile uint32_t mark; ///< futex word: non-zero once notified
  uint64_t notifySeq;     ///< the notify's ticket + 1 (the trace's field)
  Waiter *prev, *next;
};
Waiter *gHead, *gTail;

void setMark(Waiter *w, uint64_t seqPlusOne) {
  w->notifySeq = seqPlusOne;
  __atomic_store_n(&w->mark, 1, __ATOMIC_RELEASE);
  futexWakeAll(&w->mark);
}

bool passed(clockid_t clk, const struct timespec *deadline, uint64_t *left) {
  if (!deadline) {
    *left = 100000000ull;
    return false;
  }
  int64_t ns = nsUntil(Deadline{clk, deadline});
  if (ns <= 0)
    return true;
  *left = static_cast<uint64_t>(ns) < 100000000ull ? static_cast<uint64_t>(ns)
                                                   : 100000000ull;
  return false;
}

} // namespace

void wakeAllWaiters() {
  spinLock(&gR.waitLock);
  for (Waiter *w = gHead; w; w = w->next)
    if (!w->mark)
      setMark(w, 0);
  spinUnlock(&gR.waitLock);
}

int replayCondWait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk,
                   const struct timespec *deadline, uint32_t loc) {
  ThreadState *ts = enter(kRecSync); // gates the release half
  if (!ts) {
    // Not recorded (re-entered from a hook): one bounded real wait, which
    // at worst is a spurious wake-up.
    struct timespec slice;
    clock_gettime(clk, &slice);
    slice.tv_nsec += 10000000L;
    if (slice.tv_nsec >= 1000000000L)
      slice.tv_nsec -= 1000000000L, ++slice.tv_sec;
    int e =
        real_pthread_cond_clockwait()(c, m, clk, deadline ? deadline : &slice);
    return e == ETIMEDOUT && !deadline ? 0 : e;
  }
  int slot = static_cast<int>(ts->replaySlot) - 1;
  Waiter w = {c,           slot >= 0 ? static_cast<uint32_t>(slot) : kNoThread,
              ts->ordinal, 0,
              0,           nullptr,
              nullptr};
  spinLock(&gR.waitLock);
  w.prev = gTail;
  (gTail ? gTail->next : gHead) = &w;
  gTail = &w;
  spinUnlock(&gR.waitLock);
  commitHalf(ts, RP_WAIT, loc, key(m), key(c));
  leave(ts);
  // Waiting for a notify can block for good (a timed wait cannot): the
  // deadlock watchdog sees it from here to the return.
  if (!deadline)
    markBlocked(ts, RP_WAIT, loc, key(c), key(m));
  real_pthread_mutex_unlock()(m);
  bool timedOut = false, byTurn = false;
  for (;;) {
    if (fullStepScheduled(slot, w.ordinal) &&
        !__atomic_load_n(&gR.done, __ATOMIC_ACQUIRE)) {
      replayGate(ts); // returns at our turn, or when replay is over
      if (isMyTurn(ts)) {
        byTurn = true;
        break;
      }
      continue;
    }
    if (slot >= 0)
      gR.slots[slot].state = kSlotBlocked;
    if (__atomic_load_n(&w.mark, __ATOMIC_ACQUIRE))
      break;
    uint64_t left;
    if (passed(clk, deadline, &left)) {
      timedOut = true;
      break;
    }
    futexWait(&w.mark, 0, left);
  }
  // A return that is no step of the schedule comes after it: the return's
  // record would wait for the schedule's end anyway, but holding the mutex,
  // which a scheduled thread may be about to take (pigz: the main thread's
  // possess(compress_have) stuck behind a compress thread that a notify
  // matched in the witness had woken). So the mutex is re-taken after it.
  if (!byTurn)
    replayGate(ts);
  markReacquiring(ts);
  real_pthread_mutex_lock()(m);
  replayAfterBlocking();
  spinLock(&gR.waitLock);
  (w.prev ? w.prev->next : gHead) = w.next;
  (w.next ? w.next->prev : gTail) = w.prev;
  spinUnlock(&gR.waitLock);
  // A timed wait the trace shows woken by no notify timed out there: the
  // same return value keeps the program on the recorded path.
  if (byTurn && deadline && slot >= 0) {
    const SchedStep &st = gR.sched.steps[gR.head];
    timedOut = (st.flags & kStepNoNotify) != 0;
    // And the deadline has passed, as it had there (a notified wait too,
    // when it returned after its deadline): callers look at the clock
    // (timed_steps.cpp). It is this thread's turn, so no scheduled thread
    // waits for the mutex.
    if (timedOut || (st.flags & kStepPastDeadline))
      sleepUntilPassed(Deadline{clk, deadline});
  }
  if (w.mark)
    timedOut = false;
  uint64_t ops[3] = {key(c), key(m), w.notifySeq};
  recordSync(RP_WAIT, loc, ops, 3);
  return timedOut ? ETIMEDOUT : 0;
}

int replayNotify(pthread_cond_t *c, bool all, uint32_t loc) {
  ThreadState *ts = enter(kRecSync);
  bool scheduled = ts && isMyTurn(ts);
  uint32_t h = __atomic_load_n(&gR.head, __ATOMIC_ACQUIRE);
  // The notify's record takes the thread's next seq (it holds the token).
  uint64_t seq = ts ? ts->nextSeq : 0;
  if (ts && !stopped()) {
    uint64_t ops[1] = {key(c)};
    recordSimple(ts, all ? RP_BROADCAST : RP_SIGNAL, loc, ops, 1);
  }
  spinLock(&gR.waitLock);
  if (scheduled) {
    // The witness's matching: exactly the waits it says this notify woke.
    const SchedStep &st = gR.sched.steps[h];
    for (uint32_t i = 0; i < st.wakeCount; ++i) {
      const SchedWake &wk = gR.sched.wakes[st.wakeBegin + i];
      for (Waiter *w = gHead; w; w = w->next)
        if (w->cond == c && w->slot == wk.thread && w->ordinal == wk.ordinal)
          setMark(w, seq + 1);
    }
  } else {
    for (Waiter *w = gHead; w; w = w->next) {
      if (w->cond != c || w->mark)
        continue;
      setMark(w, ts ? seq + 1 : 0);
      if (!all)
        break;
    }
  }
  spinUnlock(&gR.waitLock);
  if (ts)
    leave(ts);
  // Waiters in uninstrumented code wait on the real condition variable.
  return all ? real_pthread_cond_broadcast()(c) : real_pthread_cond_signal()(c);
}

void replayBarrierArrive(pthread_barrier_t *b, uint32_t loc) {
  ThreadState *ts = enter(kRecSync);
  if (!ts)
    return;
  commitHalf(ts, RP_BARRIER, loc, key(b), key(b));
  leave(ts);
  markBlocked(ts, RP_BARRIER, loc, key(b), 0);
}

} // namespace racepredict::rt
