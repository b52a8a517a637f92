//===- replay/watchdog.cpp - Stuck schedules and predicted deadlocks ------===//
//
// A thread of the runtime's own (created with the real pthread_create, so
// the recorder never sees it; it calls no hook, no malloc, no stdio):
//   * while the schedule runs, if the head does not move for replay_timeout
//     ms, the run has left the path somewhere the turnstile cannot see (an
//     uninstrumented spin loop, a pipe, a lock taken by hidden code): it
//     settles `diverged` with what the expected thread is doing. Never
//     under a debugger (TracerPid != 0): a breakpoint must not end replay.
//   * after a deadlock schedule, it confirms the deadlock only when every
//     requesting thread is blocked, at its predicted event, on a lock that
//     the next thread of the cycle holds since its predicted acquire, and
//     all of them stayed so between two looks 50 ms apart (each blocked
//     call's sequence number unchanged). Then it ends the process with
//     RP_REPLAY_DEADLOCK_EXIT: a deadlocked program cannot end itself.
//
#include "replay_state.h"
#include "text_buf.h"

#include "../common/raw_io.h"
#include "../record/real.h"
#include "../record/state.h"

#include "racepredict/abi/replay.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

namespace racepredict::rt {
namespace {

bool underDebugger() {
  int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  char buf[4096];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0)
    return false;
  buf[n] = 0;
  const char *key = "TracerPid:";
  for (char *p = buf; *p; ++p) {
    const char *k = key;
    char *q = p;
    while (*k && *q == *k)
      ++k, ++q;
    if (*k)
      continue;
    while (*q == ' ' || *q == '\t')
      ++q;
    return *q && *q != '0';
  }
  return false;
}

void sleepMs(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, nullptr);
}

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

struct Look {
  uint32_t seq[64];
  bool all;
};

/// One look at the requests: true when every requester is blocked at its
/// request on a lock its holder took at the predicted event.
bool lookDeadlock(Look &l) {
  const Schedule &sc = gR.sched;
  for (uint32_t i = 0; i < sc.numRequests && i < 64; ++i) {
    const SchedRequest &r = sc.requests[i];
    const ReplaySlot &s = gR.slots[r.thread];
    uint32_t seq = __atomic_load_n(&s.blockSeq, __ATOMIC_SEQ_CST);
    if (!(seq & 1) || s.blockedOrdinal != r.ordinal || s.blockedKind != r.kind)
      return false;
    l.seq[i] = seq;
    uint64_t obj = s.blockedObj;
    const ReplaySlot &h = gR.slots[r.holder];
    bool held = false;
    uint32_t n = __atomic_load_n(&h.numHeld, __ATOMIC_ACQUIRE);
    for (uint32_t k = 0; k < n && k < kMaxHeld; ++k)
      held |= h.held[k].obj == obj && h.held[k].ordinal == r.holderOrdinal;
    if (!held)
      return false;
  }
  return true;
}

void confirmDeadlock() {
  const Schedule &sc = gR.sched;
  Text m;
  m.str("deadlock: ");
  for (uint32_t i = 0; i < sc.numRequests; ++i) {
    const SchedRequest &r = sc.requests[i];
    m.str(i ? "; " : "")
        .str(sc.threads[r.thread].name)
        .str(" is blocked in ")
        .str(r.desc)
        .str(" on a lock ")
        .str(sc.threads[r.holder].name)
        .str(" holds");
  }
  settle(kVerdictConfirmed, 0, m.cstr(), nullptr, nullptr);
  finishTrace(false);
  _exit(RP_REPLAY_DEADLOCK_EXIT);
}

/// A requester got past its request: the lock was free after all.
bool requestPassed() {
  for (uint32_t i = 0; i < gR.sched.numRequests; ++i) {
    const SchedRequest &r = gR.sched.requests[i];
    if (gR.slots[r.thread].ordinal > r.ordinal)
      return true;
  }
  return false;
}

void *watchdogMain(void *) {
  Look prev = {};
  bool havePrev = false;
  for (;;) {
    sleepMs(havePrev ? 50 : 20);
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
    Look now = {};
    if (lookDeadlock(now)) {
      bool same = havePrev;
      for (uint32_t i = 0; same && i < gR.sched.numRequests && i < 64; ++i)
        same = prev.seq[i] == now.seq[i];
      if (same)
        confirmDeadlock();
      prev = now;
      havePrev = true;
      continue;
    }
    havePrev = false;
    if (requestPassed()) {
      settle(kVerdictNotReproduced, 0,
             "after the schedule a requesting thread acquired its lock "
             "instead of blocking",
             nullptr, nullptr);
      return nullptr;
    }
    uint64_t since = nowNs() - gR.doneNs;
    if (limit && since > limit && !underDebugger()) {
      settle(kVerdictNotReproduced, 0,
             "after the schedule the threads did not block on the predicted "
             "locks within the replay time-out",
             nullptr, nullptr);
      return nullptr;
    }
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
