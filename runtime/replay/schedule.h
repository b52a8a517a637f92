//===- replay/schedule.h - The schedule file the replay runtime enforces --===//
//
// `racepredict replay` / `run` translate a witness (JSON) and its trace into
// this line-oriented text file; the runtime parses it once at start-up with
// the parser below (no malloc, no stdio, no STL: memory comes from mmap).
// docs/replay.md is the reference of the format:
//
//   RPSCHED 2
//   kind race|deadlock|violation
//   threads N steps M wakes W blocks B
//   thread IDX PARENT CHILD_ORDINAL NAME                  (N lines)
//   step THREAD ORDINAL KIND HALF FLAGS LINE COL FILE DESC (M lines)
//   wake STEP THREAD ORDINAL                              (W lines)
//   race STEP_A STEP_B                                    (kind race)
//   block THREAD ORDINAL KIND ON LINE COL FILE OTHER OTHER_ORDINAL REF DESC
//   end                                                   (B block lines)
//
// Version 1 files (written by earlier racepredicts: lock cycles only) are
// still read: their header says `requests R` and their R lines are
//   request THREAD ORDINAL KIND LINE COL FILE HOLDER HOLDER_ORDINAL DESC
// which is `block THREAD ORDINAL KIND lock LINE COL FILE HOLDER
// HOLDER_ORDINAL - DESC`.
//
// Threads are named by their creation path (PARENT, CHILD_ORDINAL: the
// k-th successful pthread_create of the parent), never by creation order,
// which another schedule may change. A step names a thread's ORDINAL-th
// event among the events the recorder records (alloc/free excluded), its
// kind (text-format mnemonic) and its source location as a check. Strings
// are percent-encoded (no bytes <= 0x20, '%' or 0x7f and above); an empty
// string is `-`.
//
#pragma once

#include "racepredict/abi/replay.h"

#include <stddef.h>
#include <stdint.h>

namespace racepredict::rt {

/// A violation schedule (kind violation) has neither a race line nor
/// blocks: its last step is the property's last violating event, and the
/// runtime reports what the steps did (docs/replay.md).
enum SchedKind : uint8_t {
  kSchedRace = 1,
  kSchedDeadlock = 2,
  kSchedViolation = 3
};
inline constexpr uint32_t kNoThread = 0xFFFFFFFFu;
/// Step flag: a wait whose recorded return had no notify (it timed out).
inline constexpr uint8_t kStepNoNotify = RP_STEP_NO_NOTIFY;
/// Step flag: a timed call that returned after its deadline had passed.
inline constexpr uint8_t kStepPastDeadline = RP_STEP_PAST_DEADLINE;

struct SchedThread {
  uint32_t parent;       ///< kNoThread for the root (main)
  uint32_t childOrdinal; ///< among the parent's successful pthread_creates
  /// Ordinals 0..stepOrdinals-1 have a step (a full one or a half).
  uint32_t stepOrdinals;
  /// Ordinals 0..fullOrdinals-1 have a full step (the event itself).
  uint32_t fullOrdinals;
  const char *name;
};

struct SchedStep {
  uint32_t thread;
  uint32_t ordinal;
  uint8_t kind; ///< rp_kind
  uint8_t half; ///< the release half of a wait / arrival of a barrier
  uint8_t flags;
  uint32_t line, column;
  const char *file;              ///< "" = no source location
  const char *desc;              ///< how `racepredict replay` prints the step
  uint32_t wakeBegin, wakeCount; ///< notify steps: the waits they wake
};

/// The notify at `step` woke the wait (thread, ordinal) in the witness.
struct SchedWake {
  uint32_t step, thread, ordinal;
};

/// What a thread of a predicted deadlock blocks on (the ON field; the
/// names are analysis::BlockKind's, docs/semantics.md "Deadlocks").
enum BlockOn : uint8_t {
  kOnLock = 1,   ///< acq/racq, or a wait's re-acquisition: OTHER holds it
  kOnJoin,       ///< join of OTHER, itself blocked
  kOnNotCreated, ///< never created: its creator OTHER is blocked
  kOnCondition,  ///< wait (release half done) that no notify can reach
  kOnSemaphore,  ///< semwait on the object of step REF, no post left
  kOnBarrier,    ///< departure (arrival done) short of arrivals
};

/// Deadlock: after the schedule, `thread`'s next event (ORDINAL; for a wait
/// or barrier after its first half, which is the thread's last step)
/// blocks for good, or (not-created) the thread never exists.
struct SchedBlock {
  uint32_t thread, ordinal;
  uint8_t kind;     ///< rp_kind of the blocked event (begin for not-created)
  uint8_t on;       ///< BlockOn
  uint8_t halfDone; ///< the event's first half is the thread's last step
  uint32_t line, column;
  const char *file;
  /// Lock: the holder; join: the joined thread; not-created: the creator;
  /// kNoThread otherwise.
  uint32_t other;
  uint32_t otherOrdinal; ///< lock: the holder's acquiring event
  /// Semaphore, barrier, condition: a step that operates on the object
  /// the thread must block on (the runtime compares the objects the two
  /// calls got); kNoThread otherwise.
  uint32_t ref;
  const char *desc;
};

struct Schedule {
  uint8_t kind;
  uint32_t version; ///< of the file (1 or 2)
  uint32_t numThreads, numSteps, numWakes, numBlocks;
  SchedThread *threads;
  SchedStep *steps;
  SchedWake *wakes;
  SchedBlock *blocks;
  uint32_t raceFirst, raceSecond; ///< step indices (kind race)
};

struct SchedError {
  uint32_t line; ///< 1-based line of the file, 0 = the file as a whole
  char msg[200];
};

/// Allocator for the parsed arrays (rawAlloc in the runtime, anything in
/// tests); must return zeroed memory or null.
using SchedAlloc = void *(*)(size_t bytes);

/// Parses and validates a schedule file's text. On failure returns false
/// and fills `err`; `out` is then unusable.
bool parseSchedule(const char *text, size_t len, SchedAlloc alloc,
                   Schedule *out, SchedError *err);

/// The rp_kind of a text-format mnemonic (`acq`, `rd`...), or -1.
int kindFromMnemonic(const char *s, size_t n);
const char *kindMnemonic(unsigned kind);
/// The BlockOn of an ON field (`lock`, `join`...), or 0.
uint8_t blockOnFromName(const char *s, size_t n);
const char *blockOnName(unsigned on);

} // namespace racepredict::rt
