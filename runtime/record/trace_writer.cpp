//===- record/trace_writer.cpp - Blocks, flushing, exit and fatal signals -===//
//
// Each thread encodes records into its own buffer and writes a full buffer as
// one EVENTS block (format.h); blocks of different threads interleave in the
// file. At exit(), abort() or a fatal signal the exiting thread stops all
// recording, waits briefly for threads inside a hook, and writes every
// buffer's committed records followed by END. A file cut by kill -9 lacks
// END but every complete block before the cut is readable.
//
#include "state.h"

#include "../common/raw_io.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

extern "C" char *program_invocation_short_name;

namespace racepredict::rt {

Globals g;

RP_TLS ThreadState *tlsState;

void spinSlow(volatile uint32_t *l) {
  for (unsigned spins = 0;; ++spins) {
    while (__atomic_load_n(l, __ATOMIC_RELAXED)) {
      if (++spins < 128)
        __builtin_ia32_pause();
      else
        sched_yield(); // the holder may be descheduled: let it run
    }
    if (!__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
      return;
  }
}

namespace {

void putU32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    p[i] = static_cast<uint8_t>(v >> (8 * i));
}

/// Builds the block header and the EVENTS prefix of `ts`'s buffer and
/// writes them with its records in one writev. Caller holds the file lock.
void writeEventsLocked(ThreadState *ts, uint32_t len, uint32_t count) {
  uint8_t head[RP_BLOCK_HEADER_SIZE + 30];
  uint8_t *p = head + RP_BLOCK_HEADER_SIZE;
  p = putVarint(p, ts->key);
  p = putVarint(p, ts->firstSeq);
  p = putVarint(p, count);
  uint32_t prefix = static_cast<uint32_t>(p - head) - RP_BLOCK_HEADER_SIZE;
  head[0] = RP_BLOCK_EVENTS;
  head[1] = head[2] = head[3] = 0;
  putU32(head + 4, prefix + len);
  struct iovec iov[2] = {{head, static_cast<size_t>(p - head)}, {ts->buf, len}};
  size_t total = iov[0].iov_len + iov[1].iov_len;
  ssize_t w = writev(g.fd, iov, 2);
  if (w != static_cast<ssize_t>(total) && w >= 0) {
    // Short write (signal, full disk): finish the block byte-exactly.
    size_t done = static_cast<size_t>(w);
    if (done < iov[0].iov_len) {
      writeAll(g.fd, head + done, iov[0].iov_len - done);
      done = iov[0].iov_len;
    }
    writeAll(g.fd, ts->buf + (done - iov[0].iov_len), total - done);
  }
}

} // namespace

void writeBlock(uint8_t type, const uint8_t *payload, uint32_t len) {
  uint8_t head[RP_BLOCK_HEADER_SIZE] = {type, 0, 0, 0};
  putU32(head + 4, len);
  spinLock(&g.fileLock);
  writeAll(g.fd, head, sizeof head);
  if (len)
    writeAll(g.fd, payload, len);
  spinUnlock(&g.fileLock);
}

void flushThread(ThreadState *ts) {
  if (!ts->count)
    return;
  spinLock(&g.fileLock);
  if (!g.finished)
    writeEventsLocked(ts, ts->len, ts->count);
  spinUnlock(&g.fileLock);
  ts->count = 0;
  ts->len = 0;
  ts->prevLoc = 0; // location deltas restart in every block
  ts->firstSeq = ts->nextSeq;
  __atomic_store_n(&ts->published, 0, __ATOMIC_RELEASE);
}

void openTrace() {
  char *name = g.traceName;
  size_t cap = sizeof(g.traceName) - 1, n = 0;
  const char *pattern = g.opts.trace;
  if (!pattern[0]) {
    RawBuf b;
    b.str(program_invocation_short_name ? program_invocation_short_name
                                        : "prog")
        .str(".%p.rptrace");
    pattern = b.cstr();
    // Copy before b goes out of scope.
    for (const char *s = pattern; *s && n < cap; ++s)
      name[n++] = *s;
    name[n] = 0;
    pattern = nullptr;
  }
  char tmp[512];
  const char *src = pattern ? pattern : name;
  size_t m = 0;
  for (size_t i = 0; src[i] && m + 24 < sizeof tmp; ++i) {
    if (src[i] == '%' && src[i + 1] == 'p') {
      RawBuf pid;
      pid.num(static_cast<uint64_t>(getpid()));
      for (size_t k = 0; k < pid.len; ++k)
        tmp[m++] = pid.data[k];
      ++i;
    } else
      tmp[m++] = src[i];
  }
  tmp[m] = 0;
  memcpy(name, tmp, m + 1);
  g.fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (g.fd < 0) {
    RawBuf b;
    b.str("cannot create trace '").str(name).str("'");
    fatal(b.cstr());
  }
  uint8_t header[RP_HEADER_SIZE] = {'R', 'P', 'T', 'R', 'A', 'C', 'E', 0};
  header[8] = RP_TRACE_VERSION & 0xff;
  header[9] = RP_TRACE_VERSION >> 8;
  header[10] = 1; // little-endian
  header[11] = sizeof(void *);
  writeAll(g.fd, header, sizeof header); // flags (bytes 12-15) stay 0
}

ThreadState *newThreadState(uint32_t threadKey) {
  auto *ts = static_cast<ThreadState *>(rawAlloc(sizeof(ThreadState)));
  ts->cap = static_cast<uint32_t>(g.opts.buffer);
  ts->buf = static_cast<uint8_t *>(rawAlloc(ts->cap));
  ts->key = threadKey;
  ts->tid = static_cast<int>(syscall(SYS_gettid));
  // branch_deps=all turns every decision into a plain branch: not the fast
  // path's precise one.
  ts->fastMask = gReplayOn || gTokenFence ? 0
                 : g.opts.plainBranches   ? g.opts.eventMask & ~kRecBranch
                                          : g.opts.eventMask;
  if (ts->fastMask & kRecAccess && !g.opts.plainWrites)
    ts->fastMask |= kFastWriteDeps;
  if (gReplayOn)
    replayAttach(ts);
  ThreadState *head = __atomic_load_n(&g.threads, __ATOMIC_ACQUIRE);
  do
    ts->next = head;
  while (!__atomic_compare_exchange_n(&g.threads, &head, ts, true,
                                      __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
  return ts;
}

void finishTrace(bool fromSignal) {
  if (!g.initialized || __atomic_exchange_n(&g.stopping, 1, __ATOMIC_SEQ_CST))
    return;
  ThreadState *self = tlsState;
  // Threads inside a hook finish their record within microseconds; a thread
  // that does not (stopped by the debugger, faulted in a hook) is given up
  // on after ~200 ms and only its committed records are written. Threads
  // waiting for the token have nothing half-written and give up waiting.
  struct timespec nap = {0, 1000000};
  int budget = 200;
  for (ThreadState *ts = g.threads; ts; ts = ts->next) {
    if (ts == self)
      continue;
    while (__atomic_load_n(&ts->inHook, __ATOMIC_ACQUIRE) == kInHook &&
           budget > 0) {
      nanosleep(&nap, nullptr);
      --budget;
    }
  }
  // In a signal handler the interrupted code may hold the file lock.
  for (int i = 0; __atomic_exchange_n(&g.fileLock, 1, __ATOMIC_ACQUIRE); ++i) {
    if (fromSignal && i > 1000)
      break;
    sched_yield();
  }
  uint64_t events = 0;
  for (ThreadState *ts = g.threads; ts; ts = ts->next) {
    uint64_t pub = __atomic_load_n(&ts->published, __ATOMIC_ACQUIRE);
    auto len = static_cast<uint32_t>(pub), count = uint32_t(pub >> 32);
    if (len && count)
      writeEventsLocked(ts, len, count);
    events += ts->events;
  }
  uint8_t end[RP_BLOCK_HEADER_SIZE] = {RP_BLOCK_END, 0, 0, 0, 0, 0, 0, 0};
  writeAll(g.fd, end, sizeof end);
  g.finished = true;
  close(g.fd);
  spinUnlock(&g.fileLock);
  if (g.opts.verbose) {
    RawBuf b;
    b.str("racepredict: wrote ")
        .num(events)
        .str(" events to ")
        .str(g.traceName);
    b.str("\n");
    writeAll(2, b.data, b.len);
  }
}

namespace {

void atExit() {
  ThreadState *ts = tlsState;
  if (ts && !ts->ended && !ts->inHook)
    threadEnd(ts);
  replayAtExit(0);
  finishTrace(false);
}

const int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
                             SIGTERM, SIGINT, SIGHUP, SIGQUIT};

void onFatalSignal(int sig) {
  replayAtExit(sig);
  finishTrace(true);
  // Re-deliver with the default action (core dump or termination), so the
  // program's exit status is unchanged.
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_DFL;
  sigaction(sig, &sa, nullptr);
  raise(sig);
}

} // namespace

void installExitHandlers() {
  atexit(atExit);
  for (int sig : kFatalSignals) {
    struct sigaction old;
    if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL)
      continue; // keep the program's (or the shell's SIG_IGN) disposition
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = onFatalSignal;
    sa.sa_flags = SA_NODEFER;
    sigaction(sig, &sa, nullptr);
  }
}

void recordSimple(ThreadState *ts, unsigned kind, uint32_t loc,
                  const uint64_t *ops, int n) {
  if (RP_UNLIKELY(gReplayOn))
    replayCommit(ts, kind, loc, ops, n, 0, 0);
  uint8_t *p = beginCode(ts, kind, loc);
  for (int i = 0; i < n; ++i)
    p = putVarint(p, ops[i]);
  endRecord(ts, p, loc);
}

uint8_t *putStackRecord(ThreadState *ts, uint8_t *p) {
  uint32_t shown = shownDepth(ts);
  *p++ = RP_STACK;
  p = putVarint(p, ts->traceDepth - ts->synced);
  p = putVarint(p, shown - ts->synced);
  for (uint32_t i = ts->synced; i < shown; ++i)
    p = putVarint(p, ts->frames[i]);
  ts->traceDepth = ts->synced = shown;
  ts->pending = 1;
  return p;
}

void recordBlockEvent(ThreadState *ts, unsigned kind, uint64_t lkey,
                      uint64_t size, uint32_t loc) {
  uint8_t *p = beginCode(ts, kind, loc);
  p = putLocation(ts, p, lkey);
  p = putVarint(p, size);
  endRecord(ts, p, loc);
}

void recordSync(unsigned kind, uint32_t loc, const uint64_t *ops, int n,
                uint32_t category) {
  ThreadState *ts = enter(category);
  if (!ts)
    return;
  if (!stopped())
    recordSimple(ts, kind, loc, ops, n);
  leave(ts);
}

void threadEnd(ThreadState *ts) {
  // Recorded whatever events= says (kRecThread), and last: the thread hands
  // the token on for good.
  ts->fastMask = 0;
  if (!enterAs(ts, kRecThread)) {
    ts->ended = true;
    return;
  }
  if (!stopped()) {
    recordSimple(ts, RP_END, 0, nullptr, 0);
    flushThread(ts);
  }
  ts->ended = true;
  // The pages go back to the kernel; the mapping stays valid for the exit
  // flusher, which may still look at this (now empty) buffer.
  madvise(ts->buf, ts->cap, MADV_DONTNEED);
  tokenRelease(ts);
  __atomic_store_n(&ts->inHook, kOutside, __ATOMIC_RELEASE);
}

} // namespace racepredict::rt
