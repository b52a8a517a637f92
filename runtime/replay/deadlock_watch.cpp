//===- replay/deadlock_watch.cpp - Confirm a predicted deadlock -----------===//
//
// After a deadlock schedule every thread runs freely; the members of the
// predicted deadlock go on to their blocking calls. Every 50 ms the
// watchdog looks at them, and confirms only what it sees itself
// (docs/replay.md, "Confirmation"): each member sits in a blocking call
// (pthread_mutex_lock, pthread_join, sem_wait, a condition wait...) at its
// predicted event and location, on the predicted object —
//   lock:        a lock the predicted holder took at its predicted event
//                and still holds; a holder outside the deadlock has ended;
//   join:        the predicted thread;
//   semaphore, barrier, condition: the object the schedule's step REF
//                operated on in this run (a condition wait not notified);
// every thread predicted never to be created was not created; when a member
// waits for a post, an arrival or a notify, no other instrumented thread
// is alive (the prediction's quiescence); and none of it changed between two
// consecutive looks (each blocked call's sequence number is the same: no
// member left or re-entered its call). A thread that gets past its
// blocking event, or a thread created that should not be, settles
// not-reproduced at once; if the deadlock has not formed within the replay
// time-out, the last look's reason is reported.
//
#include "replay_state.h"
#include "text_buf.h"

#include "../record/state.h"

#include "racepredict/abi/replay.h"

#include <unistd.h>

namespace racepredict::rt {
namespace {

constexpr uint32_t kMaxBlocks = 64;

struct Look {
  uint32_t seq[kMaxBlocks];
};

Look gPrev;     // the watchdog thread's previous look
bool gHavePrev; // ... which saw the whole deadlock

const char *name(uint32_t slot) {
  return slot < gR.sched.numThreads ? gR.sched.threads[slot].name : "?";
}

bool isMember(uint32_t slot) {
  for (uint32_t i = 0; i < gR.sched.numBlocks; ++i)
    if (gR.sched.blocks[i].thread == slot)
      return true;
  return false;
}

bool needsQuiescence() {
  for (uint32_t i = 0; i < gR.sched.numBlocks; ++i) {
    uint8_t on = gR.sched.blocks[i].on;
    if (on == kOnSemaphore || on == kOnBarrier || on == kOnCondition)
      return true;
  }
  return false;
}

bool holds(const ReplaySlot &h, uint64_t obj, uint32_t ordinal) {
  uint32_t n = __atomic_load_n(&h.numHeld, __ATOMIC_ACQUIRE);
  for (uint32_t k = 0; k < n && k < kMaxHeld; ++k)
    if (h.held[k].obj == obj && h.held[k].ordinal == ordinal)
      return true;
  return false;
}

/// A snapshot of what a slot blocks on, consistent with its sequence
/// number (read before and after the fields).
struct Blocked {
  uint32_t seq, kind, loc, ordinal, phase;
  uint64_t obj, aux;
};

bool snapshot(const ReplaySlot &s, Blocked *b) {
  b->seq = __atomic_load_n(&s.blockSeq, __ATOMIC_SEQ_CST);
  b->kind = s.blockedKind;
  b->loc = s.blockedLoc;
  b->ordinal = s.blockedOrdinal;
  b->phase = s.blockedPhase;
  b->obj = s.blockedObj;
  b->aux = s.blockedAux;
  return (b->seq & 1) &&
         __atomic_load_n(&s.blockSeq, __ATOMIC_SEQ_CST) == b->seq;
}

/// Whether block `b` holds now; if not, why (into `w`).
bool checkBlock(const SchedBlock &b, uint32_t *seq, Text &w) {
  const ReplaySlot &s = gR.slots[b.thread];
  *seq = 0;
  if (b.on == kOnNotCreated)
    return true; // checked (for good) by passedOrCreated
  Blocked now;
  if (!snapshot(s, &now)) {
    w.str(name(b.thread)).str(" is not blocked: it ").str(stateText(s.state));
    char last[1024];
    describeLocation(last, sizeof last, s.lastLoc);
    if (last[0])
      w.str(" after its event at ").str(last);
    return false;
  }
  *seq = now.seq;
  if (now.ordinal != b.ordinal || now.kind != b.kind ||
      !locationIs(now.loc, b.file, b.line, b.column)) {
    char actual[1024];
    describeActual(actual, sizeof actual, b.thread, now.kind, now.loc);
    w.str(name(b.thread))
        .str(" is blocked in another call (")
        .str(actual)
        .str(")");
    return false;
  }
  switch (b.on) {
  case kOnLock: {
    // A wait blocks on its mutex (whether or not it has been notified).
    uint64_t lock = b.kind == RP_WAIT ? now.aux : now.obj;
    const ReplaySlot &h = gR.slots[b.other];
    if (!holds(h, lock, b.otherOrdinal)) {
      w.str(name(b.thread))
          .str(" waits for a lock that ")
          .str(name(b.other))
          .str(" does not hold since its predicted acquisition");
      return false;
    }
    if (!isMember(b.other) &&
        __atomic_load_n(&h.state, __ATOMIC_ACQUIRE) != kSlotEnded) {
      w.str(name(b.thread))
          .str(" waits for a lock held by ")
          .str(name(b.other))
          .str(", which has not finished (it may still release it)");
      return false;
    }
    return true;
  }
  case kOnJoin: {
    uint64_t k = now.obj;
    uint32_t slot = k < kMaxThreadKeys ? gR.keyToSlot[k] : 0;
    if (slot != b.other + 1) {
      w.str(name(b.thread))
          .str(" joins another thread than ")
          .str(name(b.other));
      return false;
    }
    return true;
  }
  case kOnCondition:
    if (now.phase != 0) {
      w.str(name(b.thread)).str(" was notified (it re-takes its mutex)");
      return false;
    }
    [[fallthrough]];
  case kOnSemaphore:
  case kOnBarrier:
    if (now.obj != gR.stepObj[b.ref]) {
      w.str(name(b.thread))
          .str(" blocks on another ")
          .str(blockOnName(b.on))
          .str(" than the one of step ")
          .num(b.ref + 1);
      return false;
    }
    return true;
  default:
    w.str("unknown blocking kind");
    return false;
  }
}

/// No thread but the members can move: every other thread of the schedule
/// has ended or was never created, and no thread outside it is alive.
bool quiescent(Text &w) {
  for (uint32_t i = 0; i < gR.sched.numThreads; ++i) {
    if (isMember(i))
      continue;
    const ReplaySlot &s = gR.slots[i];
    bool gone = __atomic_load_n(&s.state, __ATOMIC_ACQUIRE) == kSlotEnded ||
                !__atomic_load_n(&s.created, __ATOMIC_ACQUIRE);
    if (!gone) {
      w.str(name(i))
          .str(" is still alive and could still post, arrive "
               "or notify: it ")
          .str(stateText(s.state));
      return false;
    }
  }
  if (__atomic_load_n(&gR.unscheduledLive, __ATOMIC_SEQ_CST)) {
    w.str("a thread created outside the schedule is still alive");
    return false;
  }
  return true;
}

/// Whether the whole deadlock is there now; its sequence numbers in `l`,
/// else why not in `why`.
bool lookDeadlock(Look &l, Text &why) {
  for (uint32_t i = 0; i < gR.sched.numBlocks; ++i)
    if (!checkBlock(gR.sched.blocks[i], &l.seq[i], why))
      return false;
  return !needsQuiescence() || quiescent(why);
}

/// A member got past its blocking event, or a thread that must not exist
/// was created: the predicted deadlock cannot happen any more in this run.
bool passedOrCreated(Text &why) {
  for (uint32_t i = 0; i < gR.sched.numBlocks; ++i) {
    const SchedBlock &b = gR.sched.blocks[i];
    const ReplaySlot &s = gR.slots[b.thread];
    if (b.on == kOnNotCreated) {
      if (__atomic_load_n(&s.created, __ATOMIC_ACQUIRE) ||
          __atomic_load_n(&s.attached, __ATOMIC_ACQUIRE)) {
        why.str(name(b.thread))
            .str(" was created, which the deadlock "
                 "rules out (its creator ")
            .str(name(b.other))
            .str(" got past its blocking event)");
        return true;
      }
      continue;
    }
    if (__atomic_load_n(&s.ordinal, __ATOMIC_ACQUIRE) > b.ordinal ||
        __atomic_load_n(&s.state, __ATOMIC_ACQUIRE) == kSlotEnded) {
      why.str(name(b.thread))
          .str(" got past ")
          .str(b.desc)
          .str(" instead of blocking there");
      return true;
    }
  }
  return false;
}

void describeBlock(Text &m, const SchedBlock &b) {
  const char *t = name(b.thread);
  switch (b.on) {
  case kOnLock:
    m.str(t)
        .str(" is blocked in ")
        .str(b.desc)
        .str(" on a lock ")
        .str(name(b.other));
    m.str(isMember(b.other) ? " holds" : " ended holding");
    break;
  case kOnJoin:
    m.str(t)
        .str(" is blocked in ")
        .str(b.desc)
        .str(" joining ")
        .str(name(b.other));
    break;
  case kOnNotCreated:
    m.str(t)
        .str(" was never created (its creator ")
        .str(name(b.other))
        .str(" is blocked)");
    break;
  case kOnCondition:
    m.str(t).str(" waits in ").str(b.desc).str(" with no notify left");
    break;
  case kOnSemaphore:
    m.str(t).str(" is blocked in ").str(b.desc).str(" with no post left");
    break;
  case kOnBarrier:
    m.str(t)
        .str(" waits in ")
        .str(b.desc)
        .str(" with no thread left to arrive");
    break;
  }
}

[[noreturn]] void confirmDeadlock() {
  const Schedule &sc = gR.sched;
  Text m;
  m.str("deadlock: ");
  for (uint32_t i = 0; i < sc.numBlocks; ++i) {
    m.str(i ? "; " : "");
    describeBlock(m, sc.blocks[i]);
  }
  if (needsQuiescence())
    m.str("; no other thread is alive");
  settle(kVerdictConfirmed, 0, m.cstr(), nullptr, nullptr);
  finishTrace(false);
  _exit(RP_REPLAY_DEADLOCK_EXIT);
}

} // namespace

void watchDeadlock(bool expired) {
  if (gR.sched.numBlocks > kMaxBlocks) {
    settle(kVerdictNotReproduced, 0,
           "the deadlock has more blocked threads than the watchdog checks "
           "(64)",
           nullptr, nullptr);
    return;
  }
  Look now;
  Text whyNot;
  if (lookDeadlock(now, whyNot)) {
    bool same = gHavePrev;
    for (uint32_t i = 0; same && i < gR.sched.numBlocks; ++i)
      same = gPrev.seq[i] == now.seq[i];
    if (same)
      confirmDeadlock();
    gPrev = now;
    gHavePrev = true;
    return;
  }
  gHavePrev = false;
  Text why;
  if (passedOrCreated(why)) {
    Text m;
    m.str("after the schedule ").str(why.cstr());
    settle(kVerdictNotReproduced, 0, m.cstr(), nullptr, nullptr);
    return;
  }
  if (expired) {
    Text m;
    m.str("after the schedule the predicted deadlock did not form within "
          "the replay time-out (")
        .num(g.opts.replay_timeout)
        .str(" ms): ")
        .str(whyNot.cstr());
    settle(kVerdictNotReproduced, 0, m.cstr(), nullptr, nullptr);
  }
}

} // namespace racepredict::rt
