//===- replay/turnstile.cpp - Enforce the schedule, one step at a time ----===//
//
// The head is the index of the next step. A thread whose next event is not
// the head's step sleeps on its slot's futex word (never spins); the thread
// that commits step h stores head = h+1 and wakes only the owner of step
// h+1. Threads outside the schedule, and threads whose part of the schedule
// is done, sleep until the whole schedule is over (docs/replay.md). Every
// check is made when the event is recorded, where its kind, location and
// operands are known; happens-before is updated before the head moves, so
// the next step always sees it.
//
#include "replay_state.h"

#include "../common/raw_io.h"
#include "../record/state.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

namespace racepredict::rt {

bool gReplayOn;
ReplayState gR;

uint64_t nowNs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<uint64_t>(ts.tv_nsec);
}

void futexWait(volatile uint32_t *word, uint32_t seen, uint64_t ns) {
  struct timespec t = {static_cast<time_t>(ns / 1000000000ull),
                       static_cast<long>(ns % 1000000000ull)};
  syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, seen, &t, nullptr, 0);
}

void futexWakeAll(volatile uint32_t *word) {
  syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 0x7fffffff, nullptr, nullptr, 0);
}

namespace {

void wakeSlot(uint32_t slot) {
  __atomic_add_fetch(&gR.slots[slot].wake, 1, __ATOMIC_RELEASE);
  futexWakeAll(&gR.slots[slot].wake);
}

void advance(uint32_t h) {
  __atomic_store_n(&gR.progressNs, nowNs(), __ATOMIC_RELAXED);
  __atomic_store_n(&gR.head, h + 1, __ATOMIC_RELEASE);
  if (h + 1 >= gR.sched.numSteps) {
    // The schedule is over; a race was settled by its last step, a
    // deadlock is now up to the watchdog, a violation up to the tool,
    // which judges what the steps did.
    __atomic_store_n(&gR.doneNs, nowNs(), __ATOMIC_RELAXED);
    if (gR.sched.kind == kSchedViolation)
      settleReached();
    releaseAll();
    return;
  }
  wakeSlot(gR.sched.steps[h + 1].thread);
}

int slotOf(const ThreadState *ts) {
  return static_cast<int>(ts->replaySlot) - 1;
}

bool locMatches(const SchedStep &st, uint32_t loc) {
  return locationIs(loc, st.file, st.line, st.column);
}

} // namespace

bool locationIs(uint32_t loc, const char *want, uint32_t line, uint32_t col) {
  const __racepredict_source *src = sourceOf(loc);
  const char *file = src && src->file ? src->file : "";
  if ((src ? src->line : 0) != line || (src ? src->column : 0) != col)
    return false;
  const char *a = file, *b = want;
  while (*a && *a == *b)
    ++a, ++b;
  return *a == *b;
}

void releaseAll() {
  if (__atomic_exchange_n(&gR.done, 1, __ATOMIC_SEQ_CST))
    return;
  // A deadlock is confirmed by the watchdog, even in a program that never
  // created a thread (it is started at most once).
  if (gR.sched.kind == kSchedDeadlock)
    startWatchdog();
  for (uint32_t i = 0; i < gR.sched.numThreads; ++i)
    wakeSlot(i);
  __atomic_add_fetch(&gR.doneWord, 1, __ATOMIC_RELEASE);
  futexWakeAll(&gR.doneWord);
}

bool isMyTurn(const ThreadState *ts) {
  if (__atomic_load_n(&gR.done, __ATOMIC_ACQUIRE))
    return false;
  uint32_t h = __atomic_load_n(&gR.head, __ATOMIC_ACQUIRE);
  if (h >= gR.sched.numSteps)
    return false;
  const SchedStep &st = gR.sched.steps[h];
  return slotOf(ts) >= 0 && st.thread == static_cast<uint32_t>(slotOf(ts)) &&
         st.ordinal == ts->ordinal;
}

bool fullStepScheduled(int slot, uint32_t ordinal) {
  return slot >= 0 && ordinal < gR.sched.threads[slot].fullOrdinals;
}

void replayGate(ThreadState *ts) {
  int slot = slotOf(ts);
  ReplaySlot *s = slot >= 0 ? &gR.slots[slot] : nullptr;
  for (;;) {
    if (__atomic_load_n(&gR.done, __ATOMIC_ACQUIRE))
      break;
    // Snapshot the futex word before looking at the head: an advance in
    // between changes the word and the wait returns at once.
    volatile uint32_t *word = s ? &s->wake : &gR.doneWord;
    uint32_t seen = __atomic_load_n(word, __ATOMIC_ACQUIRE);
    if (isMyTurn(ts))
      break;
    if (s) {
      s->ordinal = ts->ordinal;
      s->state = kSlotGated;
    }
    futexWait(word, seen, 100000000ull);
  }
  if (s)
    s->state = kSlotRunning;
}

void replayCommit(ThreadState *ts, unsigned kind, uint32_t loc,
                  const uint64_t *ops, int n, uint64_t addr, unsigned size) {
  // Allocations are no scheduling points: uninstrumented code (stdio's
  // buffers, operator new) allocates depending on hidden state (a racing
  // free is committed by replayFree).
  if (kind == RP_ALLOC || kind == RP_FREE)
    return;
  uint32_t ord = ts->ordinal++;
  if (kind == RP_FORK)
    ++ts->children; // only successful creates are recorded (and counted)
  int slot = slotOf(ts);
  if (slot >= 0) {
    ReplaySlot &s = gR.slots[slot];
    s.ordinal = ord + 1;
    s.lastLoc = loc;
    if (kind == RP_END)
      s.state = kSlotEnded;
    // Held locks stay tracked after the schedule (and after the thread
    // ended: a lock it never released is held for good).
    if (gR.sched.kind == kSchedDeadlock)
      trackHeld(static_cast<uint32_t>(slot), kind, ops, n, ord);
  } else if (kind == RP_END) {
    __atomic_sub_fetch(&gR.unscheduledLive, 1, __ATOMIC_SEQ_CST);
  }
  if (__atomic_load_n(&gR.done, __ATOMIC_ACQUIRE))
    return;
  uint32_t h = __atomic_load_n(&gR.head, __ATOMIC_ACQUIRE);
  const SchedStep &st = gR.sched.steps[h];
  if (slot < 0 || st.thread != static_cast<uint32_t>(slot) ||
      st.ordinal != ord) {
    divergeMismatch(h, kind, loc,
                    "an event was recorded out of turn (not gated)");
    return;
  }
  if (st.half) {
    divergeMismatch(h, kind, loc, "reached another operation");
    return;
  }
  if (st.kind != kind) {
    divergeMismatch(h, kind, loc, "reached another operation");
    return;
  }
  if (!locMatches(st, loc)) {
    divergeMismatch(h, kind, loc, "reached the operation at another location");
    return;
  }
  uint32_t child = kNoThread;
  if ((kind == RP_FORK || kind == RP_JOIN) && n > 0 &&
      ops[0] < kMaxThreadKeys && gR.keyToSlot[ops[0]])
    child = gR.keyToSlot[ops[0]] - 1;
  if (gR.sched.kind == kSchedRace && h + 1 == gR.sched.numSteps) {
    RaceAccess second = {static_cast<uint32_t>(slot),
                         gR.clocks.epoch(static_cast<uint32_t>(slot)),
                         size,
                         loc,
                         static_cast<uint8_t>(kind),
                         addr};
    printStep(h);
    checkRace(second);
    advance(h);
    return;
  }
  if (gR.sched.kind == kSchedRace && h == gR.sched.raceFirst) {
    gR.first = {static_cast<uint32_t>(slot),
                gR.clocks.epoch(static_cast<uint32_t>(slot)),
                size,
                loc,
                static_cast<uint8_t>(kind),
                addr};
    gR.haveFirst = true;
  }
  applyEvent(gR.clocks, static_cast<uint32_t>(slot), kind, ops, n, addr, child);
  // The object the step operated on in this run: a sync object, or the
  // address of an access (a violation's verdict compares them).
  gR.stepObj[h] = n > 0 ? ops[0] : addr;
  printStep(h);
  advance(h);
}

void replayFree(ThreadState *ts, uint32_t loc, uint64_t addr, uint64_t size) {
  if (!ts || !ts->replaySlot || gR.sched.kind != kSchedRace)
    return;
  // A free is a step only as one of the racing pair (the last two steps),
  // at its thread's next ordinal: then, and only then, it waits its turn.
  uint32_t h = gR.sched.raceFirst;
  auto slot = static_cast<uint32_t>(slotOf(ts));
  for (; h < gR.sched.numSteps; ++h) {
    const SchedStep &st = gR.sched.steps[h];
    if (st.kind == RP_FREE && st.thread == slot && st.ordinal == ts->ordinal &&
        locMatches(st, loc))
      break;
  }
  if (h >= gR.sched.numSteps)
    return;
  replayGate(ts);
  if (__atomic_load_n(&gR.head, __ATOMIC_ACQUIRE) != h)
    return; // the replay ended meanwhile
  RaceAccess freed = {
      slot, gR.clocks.epoch(slot), static_cast<uint32_t>(size), loc, RP_FREE,
      addr};
  gR.stepObj[h] = addr;
  printStep(h);
  if (h + 1 == gR.sched.numSteps) {
    checkRace(freed);
  } else {
    gR.first = freed;
    gR.haveFirst = true;
  }
  advance(h);
}

void replayCustom(ThreadState *ts, uint32_t loc,
                  const __racepredict_event_desc *d, const uint64_t *raw,
                  const uint64_t *keys, uint32_t n) {
  // Only the head step's owner writes the step's entry, before the commit
  // moves the head (and, at the last step, writes the result file).
  if (gR.sched.kind == kSchedViolation && isMyTurn(ts)) {
    uint32_t h = __atomic_load_n(&gR.head, __ATOMIC_ACQUIRE);
    gR.stepEvent[h] = d;
    for (uint32_t i = 0; i < 4; ++i)
      gR.stepArgs[4 * h + i] = i >= n                              ? 0
                               : (d->kind[i] & 3) == RP_ARG_SYMBOL ? raw[i]
                                                                   : keys[i];
  }
  replayCommit(ts, RP_CUSTOM, loc, keys, static_cast<int>(n), 0, 0);
}

bool commitHalf(ThreadState *ts, unsigned kind, uint32_t loc, uint64_t obj,
                uint64_t named) {
  int slot = slotOf(ts);
  if (kind == RP_WAIT && slot >= 0 && gR.sched.kind == kSchedDeadlock)
    dropHeld(static_cast<uint32_t>(slot), obj);
  if (!isMyTurn(ts))
    return false;
  uint32_t h = __atomic_load_n(&gR.head, __ATOMIC_ACQUIRE);
  const SchedStep &st = gR.sched.steps[h];
  const char *why = nullptr;
  if (!st.half || st.kind != kind)
    why = "reached another operation";
  else if (!locMatches(st, loc))
    why = "reached the operation at another location";
  if (why) {
    divergeMismatch(h, kind, loc, why);
    return false;
  }
  applyHalf(gR.clocks, static_cast<uint32_t>(slot), kind, obj);
  gR.stepObj[h] = named;
  printStep(h);
  advance(h);
  return true;
}

void replayAttach(ThreadState *ts) {
  uint32_t k = ts->key;
  ts->replaySlot = k < kMaxThreadKeys ? gR.keyToSlot[k] : 0;
  if (ts->replaySlot) {
    ReplaySlot &s = gR.slots[ts->replaySlot - 1];
    s.attached = 1;
    s.state = kSlotRunning;
  } else {
    __atomic_add_fetch(&gR.unscheduledLive, 1, __ATOMIC_SEQ_CST);
  }
}

void replayBeforeCreate(ThreadState *parent, uint32_t childKey) {
  startWatchdog(); // once, with the program's first thread
  // The child is "the k-th thread its parent created": stable under any
  // schedule, unlike the global creation order (docs/replay.md).
  if (childKey >= kMaxThreadKeys || !parent->replaySlot)
    return;
  uint32_t p = parent->replaySlot - 1;
  for (uint32_t i = 0; i < gR.sched.numThreads; ++i) {
    const SchedThread &t = gR.sched.threads[i];
    if (t.parent == p && t.childOrdinal == parent->children) {
      __atomic_store_n(&gR.slots[i].created, 1, __ATOMIC_SEQ_CST);
      __atomic_store_n(&gR.keyToSlot[childKey], i + 1, __ATOMIC_RELEASE);
      return;
    }
  }
}

void markBlocked(ThreadState *ts, unsigned kind, uint32_t loc, uint64_t obj,
                 uint64_t aux) {
  if (!ts->replaySlot)
    return;
  ReplaySlot &s = gR.slots[ts->replaySlot - 1];
  // The fields first, then the odd sequence number that publishes them:
  // the watchdog reads the number, the fields, and the number again.
  s.blockedObj = obj;
  s.blockedAux = aux;
  s.blockedKind = kind;
  s.blockedLoc = loc;
  s.blockedOrdinal = ts->ordinal;
  s.blockedPhase = 0;
  // Odd: blocked. A call nested in another one (a lock in a once routine)
  // changes the number too, so a look never mixes the two.
  uint32_t seq = __atomic_load_n(&s.blockSeq, __ATOMIC_RELAXED);
  __atomic_add_fetch(&s.blockSeq, (seq & 1) ? 2 : 1, __ATOMIC_SEQ_CST);
  s.state = kSlotBlocked;
}

void markReacquiring(ThreadState *ts) {
  if (!ts->replaySlot)
    return;
  ReplaySlot &s = gR.slots[ts->replaySlot - 1];
  if (!(__atomic_load_n(&s.blockSeq, __ATOMIC_RELAXED) & 1))
    return;
  s.blockedPhase = 1;
  __atomic_add_fetch(&s.blockSeq, 2, __ATOMIC_SEQ_CST); // moved, still odd
}

void replayBeforeBlocking(uint64_t obj, unsigned kind, uint32_t loc,
                          bool deadlockable) {
  ThreadState *ts = tlsState;
  if (!ts)
    ts = attachSlow();
  if (!ts || ts->inHook || ts->ended)
    return;
  replayGate(ts);
  if (!ts->replaySlot)
    return;
  if (deadlockable)
    markBlocked(ts, kind, loc, obj, 0);
  else
    gR.slots[ts->replaySlot - 1].state = kSlotBlocked;
}

void replayAfterBlocking() {
  ThreadState *ts = tlsState;
  if (!ts || !ts->replaySlot)
    return;
  ReplaySlot &s = gR.slots[ts->replaySlot - 1];
  if (__atomic_load_n(&s.blockSeq, __ATOMIC_RELAXED) & 1)
    __atomic_add_fetch(&s.blockSeq, 1, __ATOMIC_SEQ_CST);
  s.state = kSlotRunning;
}

} // namespace racepredict::rt
