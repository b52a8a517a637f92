//===- replay/watchdog.cpp - Stuck schedules and predicted deadlocks ------===//
//
// A thread of the runtime's own (created with the real pthread_create, so
// the recorder never sees it; it calls no hook, no malloc, no stdio),
// started with the program's first thread, not before: a second thread
// clears glibc's __libc_single_threaded, and libstdc++ decides on it
// (locale set-up through pthread_once, shared_ptr counts with atomics or
// plain accesses), so a process with the watchdog alone would record other
// events before the first pthread_create than the recording did
// (docs/replay.md, "Before the first thread"). With one thread nothing
// waits in the turnstile; a deadlock schedule starts it when it ends.
//   * while the schedule runs, if the head does not move for replay_timeout
//     ms, the run has left the path somewhere the turnstile cannot see (an
//     uninstrumented spin loop, a pipe, a lock taken by hidden code): it
//     settles `diverged` with what the expected thread is doing. Never
//     under a debugger (TracerPid != 0): a breakpoint must not end replay.
//   * after a deadlock schedule, every 50 ms it takes a look at the
//     blocked threads (deadlock_watch.cpp), which confirms the deadlock
//     and ends the process, or settles not-reproduced.
//
#include "replay_state.h"
#include "text_buf.h"

#include "../common/raw_io.h"
#include "../record/real.h"
#include "../record/state.h"

#include "racepredict/abi/replay.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

namespace racepredict::rt {

bool underDebugger() {
  char v[16];
  return procStatusField("TracerPid:", v, sizeof v) && v[0] && v[0] != '0';
}

namespace {

void sleepMs(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, nullptr);
}

} // namespace

const char *stateText(uint32_t s) {
  switch (s) {
  case kSlotNotStarted:
    return "was never started (its creation path does not exist in this "
           "run)";
  case kSlotGated:
    return "waits for another of its events";
  case kSlotBlocked:
    return "is blocked in a synchronisation call";
  case kSlotEnded:
    return "has ended";
  default:
    return "is running outside instrumented code (a system call, an "
           "uninstrumented library, or a loop the recorder does not see)";
  }
}

namespace {

void divergeStuck(uint32_t h) {
  const SchedStep &st = gR.sched.steps[h];
  const ReplaySlot &s = gR.slots[st.thread];
  Text m;
  m.str("thread ")
      .str(gR.sched.threads[st.thread].name)
      .str(" did not reach this step within ")
      .num(g.opts.replay_timeout)
      .str(" ms; it ")
      .str(stateText(s.state));
  char last[1024];
  describeLocation(last, sizeof last, s.lastLoc);
  if (last[0])
    m.str(" after its event at ").str(last);
  m.str("; expected: ").str(st.desc);
  settle(kVerdictDiverged, h + 1, m.cstr(), nullptr, nullptr);
}

void *watchdogMain(void *) {
  for (;;) {
    sleepMs(__atomic_load_n(&gR.done, __ATOMIC_ACQUIRE) ? 50 : 20);
    if (__atomic_load_n(&gR.verdict, __ATOMIC_ACQUIRE) != kVerdictNone)
      return nullptr;
    uint64_t limit = g.opts.replay_timeout * 1000000ull;
    if (!__atomic_load_n(&gR.done, __ATOMIC_ACQUIRE)) {
      uint64_t since =
          nowNs() - __atomic_load_n(&gR.progressNs, __ATOMIC_RELAXED);
      if (limit && since > limit && !underDebugger()) {
        uint32_t h = __atomic_load_n(&gR.head, __ATOMIC_ACQUIRE);
        if (h < gR.sched.numSteps)
          divergeStuck(h);
      }
      continue;
    }
    if (gR.sched.kind != kSchedDeadlock)
      return nullptr;
    uint64_t since = nowNs() - gR.doneNs;
    watchDeadlock(limit && since > limit && !underDebugger());
  }
}

} // namespace

void trackHeld(uint32_t slot, unsigned kind, const uint64_t *ops, int n,
               uint32_t ordinal) {
  ReplaySlot &s = gR.slots[slot];
  if (n < 1)
    return;
  if (kind == RP_ACQUIRE || kind == RP_RACQUIRE || (kind == RP_WAIT && n > 1)) {
    uint64_t obj = kind == RP_WAIT ? ops[1] : ops[0];
    uint32_t k = s.numHeld;
    if (k >= kMaxHeld)
      return;
    s.held[k].obj = obj;
    s.held[k].ordinal = ordinal;
    __atomic_store_n(&s.numHeld, k + 1, __ATOMIC_RELEASE);
  } else if (kind == RP_RELEASE) {
    dropHeld(slot, ops[0]);
  }
}

void dropHeld(uint32_t slot, uint64_t obj) {
  ReplaySlot &s = gR.slots[slot];
  uint32_t n = s.numHeld;
  // The latest hold of the lock (recursive locks hold it more than once).
  for (uint32_t k = n; k-- > 0;)
    if (s.held[k].obj == obj) {
      for (uint32_t j = k; j + 1 < n; ++j)
        s.held[j] = s.held[j + 1];
      __atomic_store_n(&s.numHeld, n - 1, __ATOMIC_RELEASE);
      return;
    }
}

void startWatchdog() {
  static uint32_t started;
  if (__atomic_exchange_n(&started, 1, __ATOMIC_ACQ_REL))
    return;
  pthread_t t;
  pthread_attr_t a;
  pthread_attr_init(&a);
  pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&a, 1u << 16);
  if (real_pthread_create()(&t, &a, watchdogMain, nullptr) != 0)
    report("replay: cannot start the watchdog thread; stuck schedules and "
           "deadlocks will not be detected");
  pthread_attr_destroy(&a);
}

} // namespace racepredict::rt
