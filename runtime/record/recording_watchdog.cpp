//===- record/recording_watchdog.cpp - Time limit, observed deadlocks ----===//
//
// A thread of the runtime's own (created with the real pthread_create, so
// it is never recorded; it calls no hook, no malloc, no stdio, and blocks
// every signal, so that signals sent to the process reach the program's
// threads). Every 20 ms it
//   * stops the recording at max_seconds (limits.cpp);
//   * looks whether the run has deadlocked: every recorded thread inside a
//     call that can block for good (noteBlocked: an untimed lock, join,
//     condition wait, semaphore wait, barrier), with nothing recorded and
//     nobody moving, for deadlock_ms. Such a run never ends by itself: the
//     trace notes the blocked threads (an observed deadlock, which `run`
//     reports) and the program is ended. A thread created and not started
//     yet, or running anywhere else, is not blocked; threads the recorder
//     does not know (created before it started, or with clone) are not
//     seen, nor are other processes or signal handlers that could still
//     wake a blocked thread (docs/recording.md, "Observed deadlocks").
//
#include "real.h"
#include "state.h"

#include "../common/raw_io.h"

#include <signal.h>
#include <time.h>

namespace racepredict::rt {
namespace {

constexpr long kTickMs = 20;

/// What every live recorded thread was blocked in at one look; `all`:
/// every one was, `mix` identifies the look (which threads, which calls,
/// how many events they recorded).
struct Look {
  bool all;
  uint32_t threads;
  uint64_t mix;
};

Look look() {
  Look l{true, 0, 0};
  for (ThreadState *ts = __atomic_load_n(&g.threads, __ATOMIC_ACQUIRE); ts;
       ts = ts->next) {
    if (__atomic_load_n(&ts->ended, __ATOMIC_ACQUIRE))
      continue; // ended, or a retired state
    uint32_t seq = __atomic_load_n(&ts->blockSeq, __ATOMIC_ACQUIRE);
    if (!(seq & 1))
      return Look{false, 0, 0};
    ++l.threads;
    uint64_t events = __atomic_load_n(&ts->events, __ATOMIC_RELAXED);
    l.mix = (l.mix ^ reinterpret_cast<uintptr_t>(ts) ^ seq ^ events << 32) *
            0x9E3779B97F4A7C15ull;
  }
  l.all = l.threads != 0;
  return l;
}

[[noreturn]] void stopDeadlocked(uint64_t ms) {
  StopNote note{};
  note.reason = RP_STOP_DEADLOCK;
  note.value = ms;
  for (ThreadState *ts = __atomic_load_n(&g.threads, __ATOMIC_ACQUIRE);
       ts && note.numBlocked < StopNote::kMaxBlocked; ts = ts->next) {
    if (__atomic_load_n(&ts->ended, __ATOMIC_ACQUIRE))
      continue;
    uint32_t seq = __atomic_load_n(&ts->blockSeq, __ATOMIC_ACQUIRE);
    StopNote::Blocked b{ts->key, ts->blockedKind, ts->blockedLoc,
                        ts->blockedObj};
    if (!(seq & 1) ||
        __atomic_load_n(&ts->blockSeq, __ATOMIC_ACQUIRE) != seq) // changed
      continue;
    // In thread order (the list has the newest first).
    uint32_t i = note.numBlocked++;
    for (; i > 0 && note.blocked[i - 1].key > b.key; --i)
      note.blocked[i] = note.blocked[i - 1];
    note.blocked[i] = b;
  }
  RawBuf why;
  why.str("every recorded thread has been blocked for ")
      .num(ms)
      .str(" ms: the run has deadlocked");
  stopRecording(note, why.cstr());
}

void *watchdogMain(void *) {
  Look prev{false, 0, 0};
  uint64_t blockedMs = 0;
  for (;;) {
    struct timespec t = {0, kTickMs * 1000000L};
    nanosleep(&t, nullptr);
    if (stopped())
      return nullptr;
    checkSeconds();
    if (!g.opts.deadlock_ms)
      continue;
    Look now = look();
    blockedMs = now.all && now.threads == prev.threads && now.mix == prev.mix
                    ? blockedMs + kTickMs
                    : 0;
    prev = now;
    if (blockedMs >= g.opts.deadlock_ms)
      stopDeadlocked(blockedMs);
  }
}

} // namespace

namespace {
/// Set once the watchdog runs in this process (cleared in a forked child,
/// which has none).
bool gWatchdogStarted;
} // namespace

void resetRecordingWatchdogInChild() { gWatchdogStarted = false; }

void startRecordingWatchdog(bool atStart) {
  if (gReplayOn || (!g.opts.max_seconds && !g.opts.deadlock_ms))
    return;
  // Without max_seconds the watchdog waits for the program's first thread:
  // a thread of ours before it makes the process multithreaded early (glibc's
  // and libstdc++'s __libc_single_threaded paths) and its recorded run then
  // differs from every replay, which starts its own watchdog only with the
  // first thread (docs/replay.md, "C++ programs: before main and before the
  // first thread"). A deadlock needs a second thread anyway; max_seconds must
  // also stop a program that never creates one.
  if (atStart && !g.opts.max_seconds)
    return;
  if (__atomic_exchange_n(&gWatchdogStarted, true, __ATOMIC_ACQ_REL))
    return;
  // The new thread inherits the signal mask: block everything around its
  // creation.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_attr_t a;
  pthread_attr_init(&a);
  pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&a, 1u << 16);
  pthread_t t;
  if (real_pthread_create()(&t, &a, watchdogMain, nullptr) != 0)
    report("cannot start the watchdog thread: max_seconds and observed "
           "deadlocks are not checked");
  pthread_attr_destroy(&a);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

} // namespace racepredict::rt
