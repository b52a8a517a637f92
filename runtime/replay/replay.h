//===- replay/replay.h - Replay mode, as the recording hooks call it ------===//
//
// Replay (RACEPREDICT_OPTIONS=replay=FILE, docs/replay.md) is the recorder
// plus a turnstile: the same hooks run and decide exactly which events the
// recorder would record, so a thread's event ordinals are the trace's by
// construction. Each hook that may record gates first (replayGate: wait
// until this thread's next event is the schedule's head) and commits the
// event when it is recorded (replayCommit: check kind and location against
// the step, update happens-before, advance the head). Blocking calls gate
// before the real call, so a lock is taken in schedule order.
//
#pragma once

#include "racepredict/abi/runtime.h"

#include <pthread.h>
#include <stdint.h>
#include <time.h>

namespace racepredict::rt {

struct ThreadState;

/// True in a process replaying a schedule; set once at start-up (cleared
/// only in a fork()ed child, which runs unreplayed).
extern bool gReplayOn;

/// Parses the schedule file of the `replay=` option (exit 2 with the file
/// and line on a bad file) and starts the watchdog. From ensureInit.
void replayInit();
/// Remembers a module's location table to compare steps' locations.
void replayRegisterModule(const __racepredict_module *m, uint32_t base);
/// Binds a new thread state to its schedule thread (by its thread key).
void replayAttach(ThreadState *ts);
/// In the parent, before the real pthread_create of the thread `childKey`:
/// names the child by its creation path (this thread, its k-th child).
void replayBeforeCreate(ThreadState *parent, uint32_t childKey);

/// Waits until `ts`'s next event is the schedule's head (or the schedule
/// is over). Called by enter(), the thread start/end paths and, through
/// replayBeforeBlocking, before blocking calls.
void replayGate(ThreadState *ts);
/// The event `ts` is recording now: checks it against the head step,
/// applies it to the replay's happens-before and advances the head.
/// `ops` are the sync operands (lock, cond, child thread key...), `addr`
/// and `size` those of a memory access.
void replayCommit(ThreadState *ts, unsigned kind, uint32_t loc,
                  const uint64_t *ops, int n, uint64_t addr, unsigned size);

/// A free about to be recorded: a step only if it is one of the racing pair
/// of a race schedule (a use-after-free), matched by its location at the
/// thread's next ordinal, which it does not take: it waits for its turn and
/// commits; any other free is none (allocations do not wait).
void replayFree(ThreadState *ts, uint32_t loc, uint64_t addr, uint64_t size);

/// A custom event (docs/properties.md) being recorded: commits it like
/// any event and, if it is the head step of a violation schedule, keeps
/// its name and arguments for the verdict (`raw` as passed: a symbol
/// argument is its __racepredict_symbol; `keys` as recorded).
void replayCustom(ThreadState *ts, uint32_t loc,
                  const __racepredict_event_desc *d, const uint64_t *raw,
                  const uint64_t *keys, uint32_t n);

/// Before a blocking pthread/sem call whose event is recorded after it
/// returns: gate, and (`deadlockable`: calls that can block for good, not
/// the timed or try forms) tell the deadlock watchdog what this thread is
/// about to block on: the object's key (lock, semaphore, once control), or
/// for a join the joined thread's key.
void replayBeforeBlocking(uint64_t obj, unsigned kind, uint32_t loc,
                          bool deadlockable);
void replayAfterBlocking();
/// The two around a blocking call, for the wrappers: preBlock(...) then
/// `postBlock(real_call(...))`.
inline void preBlock(const volatile void *obj, unsigned kind, uint32_t loc,
                     bool deadlockable) {
  if (__builtin_expect(gReplayOn, 0))
    replayBeforeBlocking(reinterpret_cast<uintptr_t>(obj), kind, loc,
                         deadlockable);
}
inline int postBlock(int r) {
  if (__builtin_expect(gReplayOn, 0))
    replayAfterBlocking();
  return r;
}

struct Deadline;
/// After a timed call returned at this thread's turn: if the trace shows
/// it returning after its deadline `d` (null: none), waits until then.
void replayAwaitDeadline(const Deadline *d);

/// Replay-mode condition variables and barriers (two-step events).
int replayCondWait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk,
                   const struct timespec *deadline, uint32_t loc);
int replayNotify(pthread_cond_t *c, bool all, uint32_t loc);
/// The arrival half of a barrier wait, before the real pthread_barrier_wait
/// (which then counts as blocking: replayAfterBlocking after it).
void replayBarrierArrive(pthread_barrier_t *b, uint32_t loc);

/// Exit, fatal signal (sig > 0): settles the verdict if none was reached.
void replayAtExit(int sig);
/// In a fork()ed child: no replay.
void replayInChild();

} // namespace racepredict::rt
