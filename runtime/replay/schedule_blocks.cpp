//===- replay/schedule_blocks.cpp - The deadlock lines of a schedule ------===//
//
// What each thread of a predicted deadlock blocks on (`block` lines, and
// version 1's lock `request` lines), validated as strictly as the steps:
// the blocked event must be the thread's next event after the schedule,
// and every thread or step a block names must exist and fit its kind.
//
#include "schedule_parser.h"

namespace racepredict::rt {
namespace detail {
namespace {

/// The full step of (thread, ordinal), or null.
const SchedStep *fullStep(const Schedule *s, uint32_t thread,
                          uint32_t ordinal) {
  for (uint32_t k = 0; k < s->numSteps; ++k) {
    const SchedStep &st = s->steps[k];
    if (st.thread == thread && st.ordinal == ordinal && !st.half)
      return &st;
  }
  return nullptr;
}

/// Whether a step of kind `k` operates on an object of the kind `on`
/// blocks on (so that REF names the same semaphore, barrier or condition).
bool sameObjectClass(unsigned k, uint8_t on) {
  switch (on) {
  case kOnSemaphore:
    return k == RP_SEMINIT || k == RP_SEMPOST || k == RP_SEMWAIT;
  case kOnBarrier:
    return k == RP_BARRIER;
  case kOnCondition:
    return k == RP_WAIT || k == RP_SIGNAL || k == RP_BROADCAST;
  default:
    return false;
  }
}

} // namespace

/// Version 1: a lock request of a lock cycle.
bool Parser::requestLine(Schedule *s, uint32_t i) {
  if (!expectKeyword("request", 10))
    return false;
  SchedBlock &r = s->blocks[i];
  if (!number(1, &r.thread) || !number(2, &r.ordinal) || !kind(3, &r.kind) ||
      !number(4, &r.line) || !number(5, &r.column) || !string(6, &r.file) ||
      !number(7, &r.other) || !number(8, &r.otherOrdinal) ||
      !string(9, &r.desc))
    return false;
  r.on = kOnLock;
  r.ref = kNoThread;
  if (r.thread >= s->numThreads || r.other >= s->numThreads)
    return fail("request of an undeclared thread");
  if (r.kind != RP_ACQUIRE && r.kind != RP_RACQUIRE)
    return fail("a deadlock request must be acq or racq");
  if (r.ordinal != s->threads[r.thread].fullOrdinals ||
      s->threads[r.thread].stepOrdinals != r.ordinal)
    return fail("a request must be its thread's next event after the "
                "schedule");
  if (r.otherOrdinal >= s->threads[r.other].fullOrdinals)
    return fail("a request's holder must have taken the lock in the "
                "schedule");
  return true;
}

/// Version 2: any blocking kind.
bool Parser::blockLine(Schedule *s, uint32_t i) {
  if (!expectKeyword("block", 12))
    return false;
  SchedBlock &b = s->blocks[i];
  if (!number(1, &b.thread) || !number(2, &b.ordinal) || !kind(3, &b.kind))
    return false;
  b.on = blockOnFromName(toks_[4].b, toks_[4].n);
  if (!b.on)
    return fail("unknown blocking kind", toks_[4].b, toks_[4].n);
  if (!number(5, &b.line) || !number(6, &b.column) || !string(7, &b.file) ||
      !optNumber(8, &b.other) || !optNumber(9, &b.otherOrdinal) ||
      !optNumber(10, &b.ref) || !string(11, &b.desc))
    return false;
  if (b.thread >= s->numThreads)
    return fail("block of an undeclared thread");
  for (uint32_t k = 0; k < i; ++k)
    if (s->blocks[k].thread == b.thread)
      return fail("two blocks of one thread");
  const SchedThread &t = s->threads[b.thread];
  bool kindOk = false;
  switch (b.on) {
  case kOnLock:
    kindOk = b.kind == RP_ACQUIRE || b.kind == RP_RACQUIRE || b.kind == RP_WAIT;
    break;
  case kOnJoin:
    kindOk = b.kind == RP_JOIN;
    break;
  case kOnNotCreated:
    kindOk = b.kind == RP_BEGIN;
    break;
  case kOnCondition:
    kindOk = b.kind == RP_WAIT;
    break;
  case kOnSemaphore:
    kindOk = b.kind == RP_SEMWAIT;
    break;
  case kOnBarrier:
    kindOk = b.kind == RP_BARRIER;
    break;
  }
  if (!kindOk)
    return fail("the blocked event's kind does not fit its blocking kind",
                toks_[4].b, toks_[4].n);
  b.halfDone = b.kind == RP_WAIT || b.kind == RP_BARRIER;
  if (b.on == kOnNotCreated) {
    if (b.ordinal != 0 || t.stepOrdinals != 0)
      return fail("a thread that is never created can have no steps");
    if (b.other != t.parent || b.other == kNoThread)
      return fail("a thread that is never created must name its creator");
  } else if (b.ordinal != t.fullOrdinals ||
             t.stepOrdinals != b.ordinal + b.halfDone) {
    return fail(b.halfDone
                    ? "a blocked wait or barrier must be its thread's next "
                      "event after the schedule, with its first half the "
                      "thread's last step"
                    : "a blocked event must be its thread's next event after "
                      "the schedule");
  }
  bool needOther = b.on == kOnLock || b.on == kOnJoin || b.on == kOnNotCreated;
  if (needOther != (b.other != kNoThread))
    return fail(needOther ? "this blocking kind needs the other thread"
                          : "this blocking kind takes no other thread");
  if (b.other != kNoThread && (b.other >= s->numThreads || b.other == b.thread))
    return fail("a block names an undeclared thread or itself");
  if ((b.on == kOnLock) != (b.otherOrdinal != kNoThread))
    return fail(b.on == kOnLock ? "a lock block needs the holder's acquisition"
                                : "only a lock block names an acquisition");
  if (b.on == kOnLock) {
    const SchedStep *acq = fullStep(s, b.other, b.otherOrdinal);
    if (!acq || !(acq->kind == RP_ACQUIRE || acq->kind == RP_RACQUIRE ||
                  acq->kind == RP_WAIT))
      return fail("a lock's holder must have acquired it in a step of the "
                  "schedule");
  }
  bool needRef =
      b.on == kOnSemaphore || b.on == kOnBarrier || b.on == kOnCondition;
  if (needRef != (b.ref != kNoThread))
    return fail(needRef ? "this blocking kind needs a step on its object"
                        : "this blocking kind takes no object step");
  if (needRef &&
      (b.ref >= s->numSteps || !sameObjectClass(s->steps[b.ref].kind, b.on)))
    return fail("the object step of a block must be a step on an object of "
                "its kind");
  return true;
}

/// Blocks that rely on other threads being blocked: those must be.
bool Parser::checkBlocks(Schedule *s) {
  for (uint32_t i = 0; i < s->numBlocks; ++i) {
    const SchedBlock &b = s->blocks[i];
    if (b.on != kOnJoin && b.on != kOnNotCreated)
      continue;
    bool found = false;
    for (uint32_t k = 0; k < s->numBlocks; ++k)
      found |= s->blocks[k].thread == b.other;
    if (!found) {
      c_.line = 0;
      return fail(b.on == kOnJoin
                      ? "a blocked join's thread must be blocked too"
                      : "a never-created thread's creator must be blocked");
    }
  }
  return true;
}

} // namespace detail

uint8_t blockOnFromName(const char *s, size_t n) {
  for (unsigned k = kOnLock; k <= kOnBarrier; ++k) {
    const char *m = blockOnName(k);
    size_t i = 0;
    while (i < n && m[i] && m[i] == s[i])
      ++i;
    if (i == n && m[i] == 0)
      return static_cast<uint8_t>(k);
  }
  return 0;
}

const char *blockOnName(unsigned on) {
  switch (on) {
  case kOnLock:
    return "lock";
  case kOnJoin:
    return "join";
  case kOnNotCreated:
    return "not-created";
  case kOnCondition:
    return "condition";
  case kOnSemaphore:
    return "semaphore";
  case kOnBarrier:
    return "barrier";
  default:
    return "?";
  }
}

} // namespace racepredict::rt
