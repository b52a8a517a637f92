//===- record/thread_hooks.cpp - pthread create/join/detach/exit/once -----===//
//
// fork is recorded with the token held across the real pthread_create (so
// it precedes the child's begin, which needs the token), join after the
// real pthread_join returned (so it follows the child's end, which the
// child records before it exits).
//
// A created thread records its end after its thread_local destructors: they
// run after the start routine returns (glibc's start_thread), and what they
// do — free a std::string's buffer, flush per-thread statistics — is the
// thread's too. Ending at the return dropped those events: a race in a
// thread_local destructor was never predicted, and the frees of such
// objects were missing from the trace. Thread-specific data's destructors
// (pthread_key_create) run later still (glibc: __call_tls_dtors, then
// __nptl_deallocate_tsd), and what they do (free a per-thread buffer, fold
// per-thread counts into a global) is the thread's too: a thread that keeps
// a value under a key (the program's pthread_setspecific, which the pass
// rewrites) records its end from the destructor of a key of our own, in the
// last round of them. Threads without such data pay nothing for it.
//
#include "real.h"
#include "state.h"

#include "../common/raw_io.h"

#include <errno.h>
#include <limits.h>

/// glibc's registration of thread_local destructors (what libstdc++'s
/// __cxa_thread_atexit calls); the executable's DSO handle.
extern "C" int __cxa_thread_atexit_impl(void (*)(void *), void *, void *);
extern "C" void *__dso_handle;

namespace racepredict::rt {
namespace {

/// pthread_t -> thread key, open addressing with linear probing in static
/// memory (no malloc in hooks). A join removes its thread, so the table
/// holds the threads not joined yet; pthread_t values are reused (a
/// detached thread's), so an insert overwrites the slot of an equal
/// pthread_t and lookups always see the latest thread.
constexpr unsigned kThreadSlots = 1u << 16;
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

/// The key of `t`, or -1 if it was not created through the interceptor;
/// `forget`: removes it (it was joined).
int64_t lookupThread(pthread_t t, bool forget = false) {
  int64_t r = -1;
  const unsigned mask = kThreadSlots - 1;
  spinLock(&gThreadTableLock);
  unsigned i = slotOf(t);
  for (unsigned n = 0; n < kThreadSlots; i = (i + 1) & mask, ++n) {
    const ThreadSlot &s = gThreadTable[i];
    if (!s.keyPlusOne)
      break;
    if (pthread_equal(s.tid, t)) {
      r = s.keyPlusOne - 1;
      break;
    }
  }
  if (r >= 0 && forget) {
    // Backward-shift deletion: later entries of the probe run move into the
    // hole unless their home slot lies cyclically in (hole, j].
    unsigned hole = i;
    for (unsigned j = (hole + 1) & mask; gThreadTable[j].keyPlusOne;
         j = (j + 1) & mask) {
      unsigned home = slotOf(gThreadTable[j].tid);
      if (((j - home) & mask) >= ((j - hole) & mask)) {
        gThreadTable[hole] = gThreadTable[j];
        hole = j;
      }
    }
    gThreadTable[hole].keyPlusOne = 0;
  }
  spinUnlock(&gThreadTableLock);
  return r;
}

struct StartArgs {
  void *(*fn)(void *);
  void *arg;
  uint32_t key;
  ThreadState *state; ///< made by the creator (null in replay mode)
};

/// This thread's end is recorded by endAfterTlsDtors (registered first, so
/// glibc runs it after every thread_local destructor, LIFO) or, once armed,
/// by endAfterTsdDtors (after the thread-specific data destructors too).
RP_TLS bool tlsEndsAfterTlsDtors;
RP_TLS bool tlsEndKeyArmed;

void endThisThread() {
  // tlsState, not the state registered: a thread that ended already (its
  // state retired, perhaps another thread's now) has none.
  ThreadState *ts = tlsState;
  if (ts && !ts->ended && !ts->inHook)
    threadEnd(ts);
}

void endAfterTlsDtors(void *) {
  if (!tlsEndKeyArmed)
    endThisThread();
}

/// The key whose destructor ends an armed thread (threadEndKeyInit).
pthread_key_t gEndKey;
bool gEndKeyMade;
/// Rounds of key destructors this thread has run ours in.
RP_TLS unsigned tlsEndKeyRounds;

void endAfterTsdDtors(void *value) {
  // glibc runs another round of key destructors while a destructor sets a
  // value again, up to PTHREAD_DESTRUCTOR_ITERATIONS rounds: re-arming
  // ours ends the thread in the last, after every destructor of the
  // earlier rounds (including those a destructor re-armed).
  if (++tlsEndKeyRounds < PTHREAD_DESTRUCTOR_ITERATIONS &&
      pthread_setspecific(gEndKey, value) == 0)
    return;
  endThisThread();
}

void *threadStart(void *p) {
  StartArgs a = *static_cast<StartArgs *>(p);
  __libc_free(p);
  // The state is set before anything else, so that hooks reached from here
  // on record as this thread (and never attach it a second time).
  if (a.state) {
    __atomic_store_n(&a.state->tid, currentTid(), __ATOMIC_RELAXED);
    __atomic_sub_fetch(&g.starting, 1, __ATOMIC_RELEASE);
  }
  tlsState = a.state ? a.state : newThreadState(a.key, currentTid());
  recordSync(RP_BEGIN, 0, nullptr, 0, kRecThread);
  tlsEndsAfterTlsDtors =
      __cxa_thread_atexit_impl(endAfterTlsDtors, nullptr, &__dso_handle) == 0;
  void *r = a.fn(a.arg);
  // Not if the thread ended already (its state may be another's now).
  ThreadState *ts = tlsState;
  if (!tlsEndsAfterTlsDtors && ts && !ts->ended && !ts->inHook)
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

/// Whether pthread_once(ctl) will wait for another thread's init routine.
/// Read with the token held (glibc's once word: 0 not started, bit 1 in
/// progress, bit 2 done): then no other recorded caller can start the
/// routine before this one calls the real pthread_once, which therefore
/// runs it (not started) or returns at once (done). Handing the token on
/// in those cases too let the other callers go first: a thread that
/// called pthread_once first, as a worker does on its first task, saw
/// its creator win the race into the routine in every recording, so a
/// race of the routine's writes with the creator's unlocked peek at their
/// result was on a path no trace contained (once_config.c).
bool onceMayBlock(pthread_once_t *ctl) {
  ThreadState *ts = gReplayOn ? nullptr : enter(kRecSync);
  if (!ts)
    return true;
  int word = __atomic_load_n(reinterpret_cast<int *>(ctl), __ATOMIC_ACQUIRE);
  leave(ts); // the token stays with this thread until its next event
  return (word & 3) == 1;
}

} // namespace

void threadEndKeyInit() {
  gEndKeyMade = pthread_key_create(&gEndKey, endAfterTsdDtors) == 0;
}

void resetThreadTableInChild() {
  for (ThreadSlot &s : gThreadTable)
    s.keyPlusOne = 0;
  gThreadTableLock = 0;
}

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
  // The creator makes the new thread's state, so that it can hand it the
  // token right away (replay mode orders threads by its schedule instead).
  ThreadState *cs = gReplayOn ? nullptr : newThreadState(child, 0);
  a->state = cs;
  if (cs)
    __atomic_add_fetch(&g.starting, 1, __ATOMIC_RELAXED);
  if (gReplayOn)
    replayBeforeCreate(ts, child);
  else
    startRecordingWatchdog(false); // once, with the program's first thread
  int r = real_pthread_create()(t, attr, threadStart, a);
  if (r == 0) {
    rememberThread(*t, child);
    if (!stopped()) {
      uint64_t ops[1] = {child};
      recordSimple(ts, RP_FORK, loc, ops, 1);
      // ThreadSanitizer's pthread_create returns once the child has
      // started, so the child's first steps come before its creator's next
      // ones: the routine of a pthread_once both call, the first use of a
      // lazily built table, is the child's in its run. The creator hands
      // the token over for the child's first start_turn_events hook
      // calls only: a whole turn let short threads run to their end before
      // their creator's next statement, which ordered them before it
      // (docs/recording.md, "The schedule").
      if (cs && (g.opts.handoff_at_create || g.opts.start_turn_events)) {
        cs->startTurn = !g.opts.handoff_at_create;
        leaveToChild(ts, cs);
        // The creator queues for the token at once, as TSan's waits for
        // its child to start: queued at its next event instead, a creator
        // the kernel had not run that far (a loaded machine) was not there
        // when the start turn ended, and the child ran to its end.
        if (cs->startTurn && (ts = enter(kRecThread)))
          leave(ts);
        return r;
      }
    }
  } else {
    __libc_free(a);
    if (cs)
      retireUnstarted(cs);
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
  if (int64_t k = lookupThread(t); k >= 0)
    noteBlocked(RP_JOIN, static_cast<uint64_t>(k), loc);
  int r = real_pthread_join()(t, ret);
  noteUnblocked();
  if (RP_UNLIKELY(gReplayOn))
    replayAfterBlocking();
  if (r == 0) {
    int64_t child = lookupThread(t, true);
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
  if (ts && !ts->ended && !ts->inHook && !tlsEndsAfterTlsDtors)
    threadEnd(ts);
  real_pthread_exit()(ret);
  __builtin_unreachable();
}

int __racepredict_pthread_setspecific(pthread_key_t k, const void *v,
                                      uint32_t) {
  // The first value this thread keeps moves its end after the key
  // destructors (which run after thread_local ones, hence the condition).
  if (v && !tlsEndKeyArmed && tlsEndsAfterTlsDtors && gEndKeyMade)
    tlsEndKeyArmed = pthread_setspecific(gEndKey, &gEndKey) == 0;
  return pthread_setspecific(k, v);
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
  if (onceMayBlock(ctl))
    beforeBlocking(); // another thread runs the routine: it needs the token
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
