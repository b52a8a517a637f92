//===- record/limits.cpp - Recording limits: events, trace size, stopping -===//
//
// A program that never ends (a service loop, a worker spinning forever) or
// records without bound would fill the disk: single recordings of 4-8 GB
// were found after runs killed by `timeout`. max_events, max_trace_bytes
// (on by default) and max_seconds (recording_watchdog.cpp) stop the recording,
// write the trace with a STOP block saying which limit was reached, and end the
// program, which is not worth running on unrecorded (docs/recording.md,
// "Recording limits"). The checks cost nothing per event: max_events
// shortens the holder's quantum so that the slow path comes exactly at the
// limit, max_trace_bytes is looked at after each block.
//
#include "state.h"

#include "../common/raw_io.h"

#include <unistd.h>

namespace racepredict::rt {

void stopRecording(const StopNote &note, const char *why) {
  RawBuf b;
  b.str("racepredict: ")
      .str(why)
      .str(": recording stops, the trace ends here (")
      .str(g.traceName)
      .str(") and the program is ended\n");
  writeAll(2, b.data, b.len);
  replayAtExit(0);
  finishTrace(false, &note);
  _exit(kStoppedExitStatus);
}

namespace {

[[noreturn]] void stopAtLimit(uint32_t reason, const char *option,
                              uint64_t limit) {
  StopNote note{};
  note.reason = reason;
  note.value = limit;
  RawBuf why;
  why.str(option).str("=").num(limit).str(" reached");
  stopRecording(note, why.cstr());
}

} // namespace

/// A turn of exactly kQuantum events ends a thread running a loop whose
/// period divides kQuantum at the same point of the loop every time -- inside
/// its critical section, say -- so that a waiter spinning on a try-lock finds
/// the lock taken at each of its turns, forever: a livelock no native run has
/// (the job of test/e2e/programs/race_exit_spinner.c polling under a lock
/// while its watcher spins on a try-lock filled 1 GB). The kernel preempts at
/// arbitrary points; so do we, shortening each quantum by a pseudo-random
/// amount drawn from the global sequence (Fibonacci hashing, 0..1023).
static uint32_t jitteredQuantum(uint64_t nextSeq) {
  return kQuantum -
         static_cast<uint32_t>((nextSeq * 0x9e3779b97f4a7c15ull) >> 54);
}

uint32_t quantumFor(ThreadState *ts) {
  uint64_t max = g.opts.max_events;
  uint32_t quantum = jitteredQuantum(ts->nextSeq);
  if (!max)
    return quantum;
  // Seqs start at 1 (a few are gaps: condition waits' reservations).
  uint64_t recorded = ts->nextSeq - 1;
  if (recorded >= max) {
    if (!stopped())
      stopAtLimit(RP_STOP_MAX_EVENTS, "max_events", max);
    return quantum;
  }
  // A quantum of q is this event and q - 1 more.
  uint64_t left = max - recorded;
  return left < quantum ? static_cast<uint32_t>(left) : quantum;
}

void checkTraceBytes() {
  uint64_t max = g.opts.max_trace_bytes;
  if (max && __atomic_load_n(&g.bytesWritten, __ATOMIC_RELAXED) >= max &&
      !stopped())
    stopAtLimit(RP_STOP_MAX_TRACE_BYTES, "max_trace_bytes", max);
}

void checkSeconds() {
  uint64_t max = g.opts.max_seconds;
  if (max && nowNs() - g.startNs >= max * 1000000000ull && !stopped())
    stopAtLimit(RP_STOP_MAX_SECONDS, "max_seconds", max);
}

} // namespace racepredict::rt
