//===- replay/schedule.h - From a witness to the runtime's schedule file --===//
//
// The replay runtime cannot read JSON or the trace (no malloc in hooks), so
// the tool translates a witness into the schedule file of docs/replay.md:
// threads named by creation path, steps as (thread, per-thread ordinal of
// the recorded events without alloc/free, kind, source location), the
// notify→wait matching, and what to confirm (the racing pair, or what each
// thread of a deadlock blocks on).
//
#pragma once

#include "racepredict/analysis/deadlock.h"
#include "racepredict/analysis/schedule_checker.h"
#include "racepredict/analysis/trace_index.h"
#include "racepredict/report/source_text.h"
#include "racepredict/support/error.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace racepredict::replay {

using analysis::EventId;

inline constexpr uint32_t kRoot = 0xFFFFFFFFu;

struct ScheduleThread {
  uint32_t parent = kRoot; ///< index of the creating thread; kRoot for main
  uint32_t childOrdinal = 0;
  std::string name; ///< the trace's thread name (messages only)
  trace::ThreadId traceThread = 0;
};

struct ScheduleStep {
  uint32_t thread = 0, ordinal = 0;
  trace::EventKind kind = trace::EventKind::Begin;
  bool half = false;
  bool noNotify = false; ///< a wait the trace shows woken by no notify
  /// A timed call that returned after its deadline (kEventPastDeadline).
  bool pastDeadline = false;
  trace::SourceLoc loc;
  std::string desc;
  EventId event = 0;
};

struct ScheduleWake {
  uint32_t step, thread, ordinal;
};

/// One thread of a deadlock, as the watchdog checks it (docs/replay.md):
/// blocked at its next event `ordinal` (for a wait or barrier after its
/// first half) on what `on` says, or never created.
struct ScheduleBlock {
  uint32_t thread = 0, ordinal = 0;
  trace::EventKind kind = trace::EventKind::Acquire;
  analysis::BlockKind on = analysis::BlockKind::Lock;
  trace::SourceLoc loc;
  /// Lock: the holder; Join: the joined thread; NotCreated: the creator;
  /// kRoot (none) otherwise.
  uint32_t other = kRoot;
  uint32_t otherOrdinal = kRoot; ///< Lock: the holder's acquisition
  /// Semaphore, Barrier, Notify: a step operating on the object (kRoot:
  /// none).
  uint32_t ref = kRoot;
  std::string desc;
  EventId event = 0;
};

struct Schedule {
  enum class Kind { Race, Deadlock, Violation } kind = Kind::Race;
  std::vector<ScheduleThread> threads;
  std::vector<ScheduleStep> steps;
  std::vector<ScheduleWake> wakes;
  std::vector<ScheduleBlock> blocks;
};

/// One blocked thread of a predicted deadlock, as findings and witness
/// files give it (analysis::BlockReason, the witness's "blocked" entries):
/// everything else (holder, joined thread, creator, object) follows from
/// the trace.
struct DeadlockBlock {
  EventId event = analysis::kNone; ///< its next event (never completes)
  analysis::BlockKind kind = analysis::BlockKind::Lock;
  /// Lock: the holder's acquisition of the lock (kNone otherwise).
  EventId heldSince = analysis::kNone;
};

/// The blocks of a finding.
std::vector<DeadlockBlock>
deadlockBlocks(const std::vector<analysis::BlockReason> &reasons);

/// Builds the schedule of a race witness: `steps` is a valid prefix
/// schedule ending with the racing events a and b. Errors name what cannot
/// be replayed (a thread not created by pthread_create, a malformed
/// witness).
Expected<Schedule> raceSchedule(const analysis::TraceIndex &idx,
                                const std::vector<analysis::Step> &steps,
                                EventId a, EventId b, report::SourceText &src);

/// Builds the schedule of a deadlock witness: `steps` is the prefix after
/// which every blocked thread's next event is its blocking event (a thread
/// never created: none of its events is in it). Errors say what cannot be
/// replayed or checked (a semaphore no step of the schedule operates on,
/// so the runtime cannot tell it from another one).
Expected<Schedule> deadlockSchedule(const analysis::TraceIndex &idx,
                                    const std::vector<analysis::Step> &steps,
                                    const std::vector<DeadlockBlock> &blocked,
                                    report::SourceText &src);

/// Builds the schedule of a property violation's witness: `steps` is a
/// valid prefix schedule that ends with the last violating event. The
/// runtime reports what every step did; replay/violation_verdict.h judges.
Expected<Schedule> violationSchedule(const analysis::TraceIndex &idx,
                                     const std::vector<analysis::Step> &steps,
                                     report::SourceText &src);

/// The file format of docs/replay.md (runtime/replay/schedule.h parses it).
void writeSchedule(const Schedule &s, std::ostream &out);
/// Percent-encoding of one string field (`-` for the empty string).
std::string encodeField(const std::string &s);

/// `[12] t2 acq m @ race.c:27 in second | pthread_mutex_lock(&m);` — how
/// reports and the replaying runtime print a step.
std::string describeStep(const trace::Trace &t, EventId e, bool half,
                         report::SourceText &src);

} // namespace racepredict::replay
