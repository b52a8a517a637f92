//===- replay/replay_init.cpp - Load the schedule, start, finish ----------===//
#include "replay_state.h"
#include "text_buf.h"

#include "../common/raw_io.h"
#include "../record/state.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace racepredict::rt {
namespace {

[[noreturn]] void badSchedule(const char *path, uint32_t line,
                              const char *msg) {
  RawBuf b;
  b.str("racepredict: replay schedule '").str(path).str("'");
  if (line)
    b.str(" line ").num(line);
  b.str(": ").str(msg).str("\n");
  writeAll(2, b.data, b.len);
  _exit(2);
}

/// The whole file in anonymous memory (read once at start-up).
char *readFile(const char *path, size_t *len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    badSchedule(path, 0, "cannot open it");
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size <= 0)
    badSchedule(path, 0, "cannot read it (empty?)");
  size_t n = static_cast<size_t>(st.st_size);
  auto *buf = static_cast<char *>(rawAlloc(n + 1));
  size_t got = 0;
  while (got < n) {
    // Raw: the interposed read(2) records (record/fd_hooks.cpp).
    long r = syscall(SYS_read, fd, buf + got, n - got);
    if (r <= 0)
      badSchedule(path, 0, "cannot read it");
    got += static_cast<size_t>(r);
  }
  close(fd);
  *len = n;
  return buf;
}

} // namespace

void replayInit() {
  const char *path = g.opts.replay;
  size_t len = 0;
  char *text = readFile(path, &len);
  SchedError err;
  if (!parseSchedule(text, len, rawAlloc, &gR.sched, &err))
    badSchedule(path, err.line, err.msg);
  uint32_t n = gR.sched.numThreads;
  gR.slots = static_cast<ReplaySlot *>(rawAlloc(sizeof(ReplaySlot) * n));
  gR.stepObj = static_cast<uint64_t *>(
      rawAlloc(sizeof(uint64_t) * (gR.sched.numSteps + 1)));
  if (gR.sched.kind == kSchedViolation) {
    gR.stepEvent = static_cast<const __racepredict_event_desc **>(
        rawAlloc(sizeof(__racepredict_event_desc *) * (gR.sched.numSteps + 1)));
    gR.stepArgs = static_cast<uint64_t *>(
        rawAlloc(sizeof(uint64_t) * 4 * (gR.sched.numSteps + 1)));
  }
  // Main exists from the start (no pthread_create names it).
  gR.slots[0].created = 1;
  gR.keyToSlot =
      static_cast<uint32_t *>(rawAlloc(sizeof(uint32_t) * kMaxThreadKeys));
  // The thread that initialises the runtime (key 0) is main: the root.
  gR.keyToSlot[0] = 1;
  // 16K objects per run: sync objects and atomic locations the schedule
  // touches; the table lives in untouched (free) pages until used.
  if (!gR.clocks.init(n, 1u << 14, rawAlloc))
    badSchedule(path, 0, "out of memory");
  gR.pid = getpid();
  gR.progressNs = nowNs();
  gReplayOn = true;
  if (gR.sched.numSteps == 0) {
    gR.doneNs = nowNs();
    releaseAll();
  }
  // The watchdog starts with the program's first thread (watchdog.cpp).
}

void replayRegisterModule(const __racepredict_module *m, uint32_t base) {
  uint32_t i = __atomic_load_n(&gR.numModules, __ATOMIC_ACQUIRE);
  if (i >= kMaxModules)
    return;
  gR.modules[i] = {m, base};
  __atomic_store_n(&gR.numModules, i + 1, __ATOMIC_RELEASE);
}

void replayAtExit(int sig) {
  if (!gReplayOn || getpid() != gR.pid ||
      __atomic_load_n(&gR.verdict, __ATOMIC_ACQUIRE) != kVerdictNone)
    return;
  uint32_t h = __atomic_load_n(&gR.head, __ATOMIC_ACQUIRE);
  Text m;
  bool done = __atomic_load_n(&gR.done, __ATOMIC_ACQUIRE);
  if (!done && h < gR.sched.numSteps) {
    m.str(sig ? "the program was killed by signal " : "the program exited");
    if (sig)
      m.num(static_cast<uint64_t>(sig));
    m.str(" before this step: ").str(gR.sched.steps[h].desc);
    settle(kVerdictDiverged, h + 1, m.cstr(), nullptr, nullptr);
    return;
  }
  if (sig)
    m.str("the program was killed by signal ")
        .num(static_cast<uint64_t>(sig))
        .str(" after the schedule, without the predicted deadlock");
  else
    m.str("the program ran to its end after the schedule without the "
          "predicted deadlock");
  settle(kVerdictNotReproduced, 0, m.cstr(), nullptr, nullptr);
}

void replayInChild() { gReplayOn = false; }

} // namespace racepredict::rt
