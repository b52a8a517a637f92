//===- trace/recording_stop.h - Why a recording stopped early -------------===//
//
// The trace's STOP block (trace/format.h) and its text lines `stop` and
// `blocked` (docs/recording.md, "Recording limits"): the recording stopped
// before the program's own end -- a fatal signal, a limit, an observed
// deadlock (with the threads blocked at that moment), exec. Reports say so:
// the analysis covers a prefix of the run.
//
#pragma once

#include "racepredict/trace/event.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace racepredict::trace {

class Trace;

/// Values as RP_STOP_* in trace/format.h.
enum class StopReason : uint8_t {
  Signal = 1,
  MaxSeconds = 2,
  MaxEvents = 3,
  MaxTraceBytes = 4,
  Deadlock = 5,
  StuckHook = 6,
  Exec = 7
};

/// A thread inside a call that can block for good when recording stopped:
/// `op` is the event the call records when it returns (acq, racq, join,
/// wait, semwait, barrier), `object` its object (in op's name space).
struct BlockedThread {
  ThreadId thread = 0;
  EventKind op = EventKind::Acquire;
  SymId object = 0;
  SrcId loc = 0;
};

struct RecordingStop {
  StopReason reason = StopReason::Signal;
  /// The signal, the limit reached, the milliseconds every thread was
  /// blocked (deadlock), the thread key (stuck hook).
  uint64_t value = 0;
  std::string text; ///< exec: the program and where recording goes on
  std::vector<BlockedThread> blocked;
};

/// The reason's name in the text format and in JSON: signal, max_seconds,
/// max_events, max_trace_bytes, deadlock, stuck_hook, exec.
const char *stopReasonName(StopReason r);
std::optional<StopReason> parseStopReason(std::string_view name);
/// Whether `r` is a STOP block's reason code.
bool isStopReason(uint64_t r);
/// Whether `op` can be a blocked thread's call.
bool isBlockingOp(EventKind op);

/// One sentence saying why the recording stopped and what that means for
/// the analysis ("the recording stopped at max_seconds=5: ...").
std::string describeStop(const RecordingStop &s);

} // namespace racepredict::trace
