//===- record/fork_exec.cpp - A forked child's trace; exec; _exit ---------===//
//
// docs/recording.md, "fork and exec". fork(): the child is a new process
// with one thread, a copy of the parent's memory -- every other thread's
// state, buffers holding the parent's unwritten records, locks held by
// threads that do not exist here. It records a trace of its own
// (<stem>.<pid>.rptrace for a fixed trace name, or trace=...%p...): the
// atfork child handler drops all of that and starts afresh, the forking
// thread as the child's t0. exec*(): the image goes, and with it the
// buffers; the trace is written first, with a STOP block naming the new
// program and the trace it goes on in (<stem>.exec.rptrace: the new image
// gets that name in its RACEPREDICT_OPTIONS). _exit(): skips atexit, not
// the trace. A vfork child (or posix_spawn's, system()'s) shares the
// parent's memory: it must touch nothing (getpid() is not g.pid).
//
#include "state.h"

#include "../common/raw_io.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

namespace racepredict::rt {

void restartInChild() {
  replayInChild();
  if (!__atomic_load_n(&g.initialized, __ATOMIC_ACQUIRE))
    return;
  if (finishing()) { // the parent had stopped recording: so does the child
    g.stopping = 1;  // it may have forked before the parent set it
    g.finished = true;
    return;
  }
  // Locks that threads of the parent may have held at the fork.
  g.fileLock = g.freeLock = g.srcLock = g.initLock = 0;
  resetTokenInChild();
  resetThreadTableInChild();
  resetCondWaitersInChild();
  resetLockStateInChild();
  // Every state but this thread's is a thread that is not here: free, and
  // its records (the parent's) are not this trace's.
  ThreadState *self = tlsState;
  g.freeStates = nullptr;
  for (ThreadState *ts = g.threads; ts; ts = ts->next) {
    ts->count = ts->len = ts->pending = 0;
    ts->published = 0;
    ts->waitRelLen = 0;
    ts->acquiring = 0;
    ts->blockSeq = 0;
    if (ts == self && !ts->ended)
      continue;
    ts->ended = true;
    ts->nextFree = g.freeStates;
    g.freeStates = ts;
  }
  g.starting = 0;
  g.nextThreadKey = 0;
  g.finisherTid = g.fatalSignal = 0;
  g.pid = getpid();
  g.startNs = nowNs();
  close(g.fd); // the parent's (its lock stays the parent's)
  char name[512];
  traceNameFor(name, sizeof name, g.pid);
  openTrace(name);
  rewriteModules();
  if (self && !self->ended) {
    // The child's main thread, t0; its stack goes into the new trace anew.
    uint32_t key = g.nextThreadKey++;
    self->key = key;
    self->firstSeq = self->nextSeq = 0;
    self->prevLoc = 0;
    self->quantum = 0;
    self->granted = false;
    self->events = 0;
    self->synced = self->traceDepth = 0;
    self->tid = currentTid();
    recordSync(RP_BEGIN, 0, nullptr, 0, kRecThread);
  }
  resetRecordingWatchdogInChild();
  startRecordingWatchdog(true);
}

} // namespace racepredict::rt

using namespace racepredict::rt;

namespace {

/// The environment `envp` with RACEPREDICT_OPTIONS naming `trace`, in one
/// mapping (`*bytes` long): the user's other options are kept.
char **envWithTrace(char *const envp[], const char *trace, size_t *bytes) {
  const char *key = "RACEPREDICT_OPTIONS=";
  size_t kl = rawStrlen(key), n = 0;
  const char *user = "";
  for (; envp && envp[n]; ++n)
    if (rawStreq(envp[n], key, kl))
      user = envp[n] + kl;
  size_t strings = kl + rawStrlen(user) + rawStrlen(trace) + 16;
  *bytes = (n + 2) * sizeof(char *) + strings;
  auto **out = static_cast<char **>(rawAlloc(*bytes));
  char *opt = reinterpret_cast<char *>(out + n + 2), *p = opt;
  auto put = [&p](const char *s, size_t len) {
    memcpy(p, s, len);
    p += len;
  };
  put(key, kl);
  // The user's options without their trace=, then ours.
  for (const char *s = user; *s;) {
    size_t len = 0;
    while (s[len] && s[len] != ':')
      ++len;
    if (len && !rawStreq(s, "trace=", 6)) {
      put(s, len);
      put(":", 1);
    }
    s += len + (s[len] == ':');
  }
  put("trace=", 6);
  put(trace, rawStrlen(trace));
  *p = 0;
  size_t k = 0;
  for (size_t i = 0; i < n; ++i)
    if (!rawStreq(envp[i], key, kl))
      out[k++] = envp[i];
  out[k++] = opt;
  out[k] = nullptr;
  return out;
}

} // namespace

extern "C" {

/// Before an exec of `prog` (that would succeed, as far as its wrapper can
/// tell): writes the trace, and returns the environment the new image gets
/// (null: use `envp` unchanged; nothing recorded here).
char **__racepredict_before_exec(const char *prog, char *const envp[],
                                 size_t *bytes) {
  if (!__atomic_load_n(&g.initialized, __ATOMIC_ACQUIRE) || gReplayOn ||
      getpid() != g.pid || stopped())
    return nullptr;
  char stem[512], next[512];
  traceStem(stem, sizeof stem, g.traceName);
  RawBuf n;
  n.str(stem).str(".exec.rptrace");
  rawCopy(next, n.cstr(), sizeof next);
  char **env = envWithTrace(envp, next, bytes);
  RawBuf text;
  text.str(prog).str(" -> ").str(next);
  StopNote note{};
  note.reason = RP_STOP_EXEC;
  note.text = text.cstr();
  finishTrace(false, &note);
  return env;
}

/// The exec failed: recording has stopped (the buffers are written).
void __racepredict_exec_failed(const char *prog, char **env, size_t bytes) {
  if (!env)
    return;
  rawFree(env, bytes);
  RawBuf b;
  b.str("racepredict: exec of ")
      .str(prog)
      .str(" failed after the trace was written: the program goes on "
           "unrecorded\n");
  writeAll(2, b.data, b.len);
}

/// Before _exit: the trace is written (no grace: _exit is immediate).
void __racepredict_before_exit_now(void) {
  if (!__atomic_load_n(&g.initialized, __ATOMIC_ACQUIRE) || getpid() != g.pid)
    return;
  ThreadState *ts = tlsState;
  if (ts && !ts->ended && !ts->inHook)
    threadEnd(ts);
  replayAtExit(0);
  finishTrace(false);
}

} // extern "C"
