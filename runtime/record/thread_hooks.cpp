//===- record/thread_hooks.cpp - pthread create/join/detach/exit/once -----===//
//
// fork is recorded with the token held across the real pthread_create (so
// it precedes the child's begin, which needs the token), join after the
// real pthread_join returned (so it follows the child's end, which the
// child records before it exits).
//
#include "real.h"
#include "state.h"

#include "../common/raw_io.h"

#include <errno.h>

namespace racepredict::rt {
namespace {

/// pthread_t -> thread key, open addressing in static memory (no malloc in
/// hooks). pthread_t values are reused after join, so an insert overwrites
/// the slot of an equal pthread_t and lookups always see the latest thread.
constexpr unsigned kThreadSlots = 1u << 14;
struct ThreadSlot {
  pthread_t tid;
  uint32_t keyPlusOne; ///< 0 = empty
};
ThreadSlot gThreadTable[kThreadSlots];
volatile uint32_t gThreadTableLock;

unsigned slotOf(pthread_t t) {
  return static_cast<unsigned>(
             (static_cast<uint64_t>(t) >> 4) * 0x9E3779B97F4A7C15ull >> 50) &
         (kThreadSlots - 1);
}

void rememberThread(pthread_t t, uint32_t key) {
  spinLock(&gThreadTableLock);
  for (unsigned i = slotOf(t), n = 0; n < kThreadSlots;
       i = (i + 1) & (kThreadSlots - 1), ++n) {
    ThreadSlot &s = gThreadTable[i];
    if (!s.keyPlusOne || pthread_equal(s.tid, t)) {
      s.tid = t;
      s.keyPlusOne = key + 1;
      break;
    }
  }
  spinUnlock(&gThreadTableLock);
}

/// The key of `t`, or -1 if it was not created through the interceptor.
int64_t lookupThread(pthread_t t) {
  int64_t r = -1;
  spinLock(&gThreadTableLock);
  for (unsigned i = slotOf(t), n = 0; n < kThreadSlots;
       i = (i + 1) & (kThreadSlots - 1), ++n) {
    const ThreadSlot &s = gThreadTable[i];
    if (!s.keyPlusOne)
      break;
    if (pthread_equal(s.tid, t)) {
      r = s.keyPlusOne - 1;
      break;
    }
  }
  spinUnlock(&gThreadTableLock);
  return r;
}

struct StartArgs {
  void *(*fn)(void *);
  void *arg;
  uint32_t key;
};

void *threadStart(void *p) {
  StartArgs a = *static_cast<StartArgs *>(p);
  __libc_free(p);
  // The state is set before anything else, so that hooks reached from here
  // on record as this thread (and never attach it a second time).
  ThreadState *ts = newThreadState(a.key);
  tlsState = ts;
  recordSync(RP_BEGIN, 0, nullptr, 0, kRecThread);
  void *r = a.fn(a.arg);
  if (!ts->ended && !ts->inHook)
    threadEnd(ts);
  return r;
}

// pthread_once: the caller that runs the init routine posts a semaphore
// named by the once control afterwards; every other caller waits on it and
// re-posts. That orders the init routine's events before every return of
// pthread_once, which a lock model would not.
RP_TLS void (*tlsOnceFn)(void);
RP_TLS pthread_once_t *tlsOnceCtl;
RP_TLS uint32_t tlsOnceLoc;
RP_TLS bool *tlsOnceRan;

void onceTrampoline() {
  void (*fn)(void) = tlsOnceFn;
  pthread_once_t *ctl = tlsOnceCtl;
  uint32_t loc = tlsOnceLoc;
  bool *ran = tlsOnceRan;
  // Replay: the hook marked this thread blocked before the real call, but
  // the thread that runs the routine does not wait; its events take turns.
  if (RP_UNLIKELY(gReplayOn))
    replayAfterBlocking();
  fn();
  uint64_t ops[1] = {key(ctl)};
  recordSync(RP_SEMPOST, loc, ops, 1);
  *ran = true;
}

} // namespace
} // namespace racepredict::rt

using namespace racepredict::rt;

extern "C" {

int __racepredict_pthread_create(pthread_t *t, const pthread_attr_t *attr,
                                 void *(*fn)(void *), void *arg, uint32_t loc) {
  ThreadState *ts = enter(kRecThread);
  if (!ts)
    return real_pthread_create()(t, attr, fn, arg);
  uint32_t child = __atomic_fetch_add(&g.nextThreadKey, 1, __ATOMIC_RELAXED);
  auto *a = static_cast<StartArgs *>(__libc_malloc(sizeof(StartArgs)));
  if (!a) {
    leave(ts);
    return EAGAIN;
  }
  a->fn = fn;
  a->arg = arg;
  a->key = child;
  if (gReplayOn)
    replayBeforeCreate(ts, child);
  int r = real_pthread_create()(t, attr, threadStart, a);
  if (r == 0) {
    rememberThread(*t, child);
    if (!stopped()) {
      uint64_t ops[1] = {child};
      recordSimple(ts, RP_FORK, loc, ops, 1);
    }
  } else {
    __libc_free(a);
  }
  leave(ts);
  return r;
}

int __racepredict_pthread_join(pthread_t t, void **ret, uint32_t loc) {
  if (RP_UNLIKELY(gReplayOn)) {
    // The deadlock watchdog checks whom a blocked join waits for.
    int64_t k = lookupThread(t);
    replayBeforeBlocking(k >= 0 ? static_cast<uint64_t>(k) : ~0ull, RP_JOIN,
                         loc, true);
  }
  beforeBlocking();
  int r = real_pthread_join()(t, ret);
  if (RP_UNLIKELY(gReplayOn))
    replayAfterBlocking();
  if (r == 0) {
    int64_t child = lookupThread(t);
    if (child >= 0) {
      uint64_t ops[1] = {static_cast<uint64_t>(child)};
      recordSync(RP_JOIN, loc, ops, 1, kRecThread);
    }
  }
  return r;
}

int __racepredict_pthread_detach(pthread_t t, uint32_t) {
  return real_pthread_detach()(t);
}

void __racepredict_pthread_exit(void *ret, uint32_t) {
  ThreadState *ts = tlsState;
  if (ts && !ts->ended && !ts->inHook)
    threadEnd(ts);
  real_pthread_exit()(ret);
  __builtin_unreachable();
}

int __racepredict_pthread_once(pthread_once_t *ctl, void (*fn)(void),
                               uint32_t loc) {
  bool ran = false;
  void (*saveFn)(void) = tlsOnceFn;
  pthread_once_t *saveCtl = tlsOnceCtl;
  uint32_t saveLoc = tlsOnceLoc;
  bool *saveRan = tlsOnceRan;
  tlsOnceFn = fn;
  tlsOnceCtl = ctl;
  tlsOnceLoc = loc;
  tlsOnceRan = &ran;
  if (RP_UNLIKELY(gReplayOn))
    // Not deadlockable: this thread may be the one that runs the routine
    // (then it is not blocked at all while the call lasts).
    replayBeforeBlocking(key(ctl), RP_SEMWAIT, loc, false);
  beforeBlocking(); // another thread may be running the routine
  int r = real_pthread_once()(ctl, onceTrampoline);
  if (RP_UNLIKELY(gReplayOn))
    replayAfterBlocking();
  tlsOnceFn = saveFn;
  tlsOnceCtl = saveCtl;
  tlsOnceLoc = saveLoc;
  tlsOnceRan = saveRan;
  if (r == 0 && !ran) {
    uint64_t ops[1] = {key(ctl)};
    recordSync(RP_SEMWAIT, loc, ops, 1);
    recordSync(RP_SEMPOST, loc, ops, 1);
  }
  return r;
}

} // extern "C"
