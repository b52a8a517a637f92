//===- replay/schedule.h - The schedule file the replay runtime enforces --===//
//
// `racepredict replay` / `run` translate a witness (JSON) and its trace into
// this line-oriented text file; the runtime parses it once at start-up with
// the parser below (no malloc, no stdio, no STL: memory comes from mmap).
// docs/replay.md is the reference of the format:
//
//   RPSCHED 1
//   kind race|deadlock
//   threads N steps M wakes W requests R
//   thread IDX PARENT CHILD_ORDINAL NAME                  (N lines)
//   step THREAD ORDINAL KIND HALF FLAGS LINE COL FILE DESC (M lines)
//   wake STEP THREAD ORDINAL                              (W lines)
//   race STEP_A STEP_B                                    (kind race)
//   request THREAD ORDINAL KIND LINE COL FILE HOLDER HOLDER_ORDINAL DESC
//   end
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

#include <stddef.h>
#include <stdint.h>

namespace racepredict::rt {

enum SchedKind : uint8_t { kSchedRace = 1, kSchedDeadlock = 2 };
inline constexpr uint32_t kNoThread = 0xFFFFFFFFu;
/// Step flag: a wait whose recorded return had no notify (it timed out).
inline constexpr uint8_t kStepNoNotify = 1;

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

/// Deadlock: after the schedule, `thread`'s next event (ORDINAL) requests a
/// lock that `holder` took at its event HOLDER_ORDINAL and still holds.
struct SchedRequest {
  uint32_t thread, ordinal;
  uint8_t kind;
  uint32_t line, column;
  const char *file;
  uint32_t holder, holderOrdinal;
  const char *desc;
};

struct Schedule {
  uint8_t kind;
  uint32_t numThreads, numSteps, numWakes, numRequests;
  SchedThread *threads;
  SchedStep *steps;
  SchedWake *wakes;
  SchedRequest *requests;
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

} // namespace racepredict::rt
