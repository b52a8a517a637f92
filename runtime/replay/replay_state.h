//===- replay/replay_state.h - State shared by the replay runtime's parts -===//
//
// One ReplaySlot per schedule thread (its futex word, what it is doing for
// the watchdog's diagnosis, the locks it holds for the deadlock check), the
// schedule, the head, and the race's first access. Before the schedule is
// over only the thread whose step is the head mutates the clocks, so they
// need no lock: the head's release store / acquire load orders them.
//
#pragma once

#include "happens_before.h"
#include "schedule.h"

#include "racepredict/abi/runtime.h"

#include <stdint.h>
#include <sys/types.h>

namespace racepredict::rt {

struct ThreadState;

enum SlotState : uint32_t {
  kSlotNotStarted, ///< no thread has this creation path (yet)
  kSlotRunning,    ///< between hooks: program code, syscalls, spins
  kSlotGated,      ///< waiting in the turnstile for its turn
  kSlotBlocked,    ///< inside a blocking call (lock, join, sem, wait...)
  kSlotEnded
};

enum Verdict : uint32_t {
  kVerdictNone,
  kVerdictConfirmed,
  kVerdictDiverged,
  kVerdictNotReproduced,
  /// A violation schedule ran to its last step: the tool decides from the
  /// observed steps (result file `observe` lines) whether the violation
  /// happened; the runtime never confirms one itself.
  kVerdictReached
};

inline constexpr uint32_t kMaxHeld = 32;

struct HeldLock {
  uint64_t obj;
  uint32_t ordinal; ///< the acquiring event's ordinal
};

struct alignas(64) ReplaySlot {
  volatile uint32_t wake; ///< futex word: bumped when its turn may have come
  volatile uint32_t state;
  volatile uint32_t ordinal; ///< the thread's next event ordinal
  volatile uint32_t lastLoc; ///< source id of its last recorded event
  volatile uint32_t attached;
  /// Its creator named it (the real pthread_create was called for it).
  volatile uint32_t created;
  // What it blocks on (deadlock watchdog); blockSeq is odd while blocked
  // in a call that may block for good, and changes whenever the thread
  // moves (enters, changes phase in, or leaves such a call).
  volatile uint32_t blockSeq;
  volatile uint32_t blockedKind, blockedLoc, blockedOrdinal;
  /// A condition wait: 0 while it waits for a notify, 1 once it
  /// re-acquires its mutex.
  volatile uint32_t blockedPhase;
  /// The lock, semaphore, barrier or condition (the recorder's key of the
  /// object), or for a join the joined thread's key (~0: unknown thread).
  volatile uint64_t blockedObj;
  volatile uint64_t blockedAux; ///< a condition wait's mutex
  volatile uint32_t numHeld;
  HeldLock held[kMaxHeld];
};

/// The first racing access, remembered until the second one executes.
struct RaceAccess {
  uint32_t slot, epoch, size, loc;
  uint8_t kind;
  uint64_t addr;
};

struct ModuleEntry {
  const __racepredict_module *module;
  uint32_t base;
};
inline constexpr uint32_t kMaxModules = 512;
inline constexpr uint32_t kMaxThreadKeys = 1u << 16;

struct ReplayState {
  Schedule sched;
  ReplaySlot *slots;
  /// Recorder thread key (creation order in this run) -> slot + 1.
  uint32_t *keyToSlot;
  VectorClocks clocks;
  RaceAccess first;
  bool haveFirst;
  volatile uint32_t head;
  volatile uint32_t done;     ///< the schedule is over: execution is free
  volatile uint32_t doneWord; ///< futex of threads outside the schedule
  volatile uint32_t verdict;
  volatile uint64_t progressNs; ///< when the head last moved
  volatile uint64_t doneNs;     ///< when the schedule ended
  pid_t pid;
  ModuleEntry modules[kMaxModules];
  volatile uint32_t numModules;
  volatile uint32_t waitLock; ///< guards the replay condvar waiter list
  /// Per step, the object it operated on in this run (its first operand;
  /// a wait's condition, a barrier), so that a deadlock block can name
  /// "the semaphore step k used" instead of a trace address.
  uint64_t *stepObj;
  /// Violation schedules: per step, the custom event it executed (null if
  /// none: its descriptor gives the name and argument kinds) and its four
  /// arguments as passed (a symbol argument is its __racepredict_symbol).
  const __racepredict_event_desc **stepEvent;
  uint64_t *stepArgs;
  /// Instrumented threads alive outside the schedule's threads (created
  /// on paths the trace does not have): they could still post or notify.
  volatile uint32_t unscheduledLive;
};

extern ReplayState gR;

// --- timed_steps.cpp ------------------------------------------------------
struct Deadline;
/// Returns once the deadline `d` has passed on its clock.
void sleepUntilPassed(const Deadline &d);
/// The head step returned after its deadline in the trace.
bool headPastDeadline();

// --- turnstile.cpp --------------------------------------------------------
uint64_t nowNs();
void futexWait(volatile uint32_t *word, uint32_t seen, uint64_t ns);
void futexWakeAll(volatile uint32_t *word);
/// Ends the scheduled part: every gated thread runs freely from now on.
void releaseAll();
/// The head step belongs to `ts`'s next event (and the schedule runs).
bool isMyTurn(const ThreadState *ts);
/// The half step of a wait/barrier: check, clocks, advance. False if the
/// schedule is over (free execution) or the step did not match.
/// `obj` is what the half does to happens-before (a wait releases its
/// mutex), `named` the object the step operates on (the condition, the
/// barrier), kept in gR.stepObj.
bool commitHalf(ThreadState *ts, unsigned kind, uint32_t loc, uint64_t obj,
                uint64_t named);
/// Whether (ordinal, full event) of schedule thread `slot` has a step.
bool fullStepScheduled(int slot, uint32_t ordinal);
/// Whether source id `loc` is (file, line, column).
bool locationIs(uint32_t loc, const char *file, uint32_t line, uint32_t col);
/// `ts` enters a call that may block it for good: what on, at which
/// event (its next one), for the deadlock watchdog. `aux` is a condition
/// wait's mutex.
void markBlocked(ThreadState *ts, unsigned kind, uint32_t loc, uint64_t obj,
                 uint64_t aux);
/// A condition wait stops waiting for a notify and re-takes its mutex.
void markReacquiring(ThreadState *ts);

// --- verdict.cpp ----------------------------------------------------------
/// The source entry of a location id (null for 0 / unknown).
const __racepredict_source *sourceOf(uint32_t loc);
/// Settles the verdict (the first one wins), writes the result file,
/// prints the message and ends the scheduled part. `step` is 1-based (0 =
/// none); `location` is where the run left the path (may be null).
void settle(Verdict v, uint32_t step, const char *message, const char *location,
            const char *variable);
/// Diverged at the head step: thread of `ts` recorded `kind` at `loc`.
void divergeMismatch(uint32_t step, unsigned kind, uint32_t loc,
                     const char *why);
/// Checks the two racing accesses of a race schedule (the second one is
/// being committed now) and settles confirmed / not-reproduced.
void checkRace(const RaceAccess &second);
/// A violation schedule's last step is done: settles `reached` and writes
/// what every step did (result file `observe` lines, docs/replay.md).
void settleReached();
/// Prints the step when replay_verbose=1.
void printStep(uint32_t step);
/// `file:line:col in fn` of a source id ("" when unknown).
void describeLocation(char *buf, size_t cap, uint32_t loc);
/// `t1 acq` + ` @ file:line:col in fn`: the actual event, for messages.
void describeActual(char *buf, size_t cap, uint32_t slot, unsigned kind,
                    uint32_t loc);

// --- watchdog.cpp ---------------------------------------------------------
/// Starts the watchdog thread, the first time only: when the program
/// creates its first thread, or a deadlock schedule ends.
void startWatchdog();
bool underDebugger();
/// What a slot's state means, for messages ("is blocked in a ...").
const char *stateText(uint32_t state);
/// Deadlock schedules: the lock list of `slot` (acquire / release events).
void trackHeld(uint32_t slot, unsigned kind, const uint64_t *ops, int n,
               uint32_t ordinal);
void dropHeld(uint32_t slot, uint64_t obj);

// --- deadlock_watch.cpp ---------------------------------------------------
/// One look of the deadlock watchdog after the schedule: confirms (and
/// ends the process), settles not-reproduced, or returns to look again.
/// `expired`: the replay time-out has passed since the schedule ended.
void watchDeadlock(bool expired);

// --- cond_barrier.cpp -----------------------------------------------------
/// Marks every registered waiter (replay ended early: spurious wake-ups
/// keep a free-running program from hanging on notifies that were due).
void wakeAllWaiters();

} // namespace racepredict::rt
