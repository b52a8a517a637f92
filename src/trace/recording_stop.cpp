//===- trace/recording_stop.cpp - Why a recording stopped early -----------===//
#include "racepredict/trace/recording_stop.h"

#include <csignal>
#include <cstring>

namespace racepredict::trace {

namespace {
constexpr const char *kNames[] = {
    "",         "signal",     "max_seconds", "max_events", "max_trace_bytes",
    "deadlock", "stuck_hook", "exec"};
constexpr uint64_t kLast = static_cast<uint64_t>(StopReason::Exec);
} // namespace

const char *stopReasonName(StopReason r) {
  return isStopReason(static_cast<uint64_t>(r)) ? kNames[static_cast<int>(r)]
                                                : "?";
}

std::optional<StopReason> parseStopReason(std::string_view name) {
  for (uint64_t r = 1; r <= kLast; ++r)
    if (name == kNames[r])
      return static_cast<StopReason>(r);
  return std::nullopt;
}

bool isStopReason(uint64_t r) { return r >= 1 && r <= kLast; }

bool isBlockingOp(EventKind op) {
  switch (op) {
  case EventKind::Acquire:
  case EventKind::RAcquire:
  case EventKind::Join:
  case EventKind::Wait:
  case EventKind::SemWait:
  case EventKind::Barrier:
    return true;
  default:
    return false;
  }
}

std::string describeStop(const RecordingStop &s) {
  std::string v = std::to_string(s.value);
  switch (s.reason) {
  case StopReason::Signal: {
    const char *name = sigabbrev_np(static_cast<int>(s.value));
    return "the program was ended by signal " + v +
           (name ? std::string(" (SIG") + name + ")" : std::string()) +
           ": the trace holds the run up to there";
  }
  case StopReason::MaxSeconds:
  case StopReason::MaxEvents:
  case StopReason::MaxTraceBytes:
    return std::string("the recording stopped at the limit ") +
           stopReasonName(s.reason) + "=" + v +
           " and the program was ended: the analysis covers that prefix of "
           "the run";
  case StopReason::Deadlock:
    return "every recorded thread was blocked for " + v +
           " ms: the run deadlocked (observed), and the program was ended";
  case StopReason::StuckHook:
    return "thread t" + v +
           " stayed inside a recording hook: recording stopped there and "
           "the program ran on unrecorded";
  case StopReason::Exec:
    return "the program exec'd " + s.text +
           ": the trace holds the run up to the exec";
  }
  return "the recording stopped early";
}

} // namespace racepredict::trace
