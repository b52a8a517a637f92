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

namespace racepredict::rt {

Globals g;

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

/// Builds the block header and the EVENTS prefix of `count` records of
/// thread `key` starting at `firstSeq` and writes them with the records in
/// one writev. Caller holds the file lock.
void writeEventsLocked(uint32_t key, uint64_t firstSeq, const uint8_t *records,
                       uint32_t len, uint32_t count) {
  uint8_t head[RP_BLOCK_HEADER_SIZE + 30];
  uint8_t *p = head + RP_BLOCK_HEADER_SIZE;
  p = putVarint(p, key);
  p = putVarint(p, firstSeq);
  p = putVarint(p, count);
  uint32_t prefix = static_cast<uint32_t>(p - head) - RP_BLOCK_HEADER_SIZE;
  head[0] = RP_BLOCK_EVENTS;
  head[1] = head[2] = head[3] = 0;
  putU32(head + 4, prefix + len);
  struct iovec iov[2] = {{head, static_cast<size_t>(p - head)},
                         {const_cast<uint8_t *>(records), len}};
  size_t total = iov[0].iov_len + iov[1].iov_len;
  g.bytesWritten += total;
  ssize_t w = writev(g.fd, iov, 2);
  if (w != static_cast<ssize_t>(total) && w >= 0) {
    // Short write (signal, full disk): finish the block byte-exactly.
    size_t done = static_cast<size_t>(w);
    if (done < iov[0].iov_len) {
      writeAll(g.fd, head + done, iov[0].iov_len - done);
      done = iov[0].iov_len;
    }
    writeAll(g.fd, records + (done - iov[0].iov_len), total - done);
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
  g.bytesWritten += sizeof head + len;
  spinUnlock(&g.fileLock);
}

namespace {

/// The STOP block (format.h) for `note`. Caller holds the file lock.
void writeStopLocked(const StopNote &note) {
  uint8_t buf[64 + 255 + StopNote::kMaxBlocked * 40];
  uint8_t *p = buf + RP_BLOCK_HEADER_SIZE;
  p = putVarint(p, note.reason);
  p = putVarint(p, note.value);
  size_t tl = note.text ? rawStrlen(note.text) : 0;
  if (tl > 255)
    tl = 255;
  p = putVarint(p, tl);
  for (size_t i = 0; i < tl; ++i)
    *p++ = static_cast<uint8_t>(note.text[i]);
  p = putVarint(p, note.numBlocked);
  for (uint32_t i = 0; i < note.numBlocked; ++i) {
    const StopNote::Blocked &b = note.blocked[i];
    p = putVarint(p, b.key);
    p = putVarint(p, b.kind);
    p = putVarint(p, b.obj);
    p = putVarint(p, b.loc);
  }
  uint32_t len = static_cast<uint32_t>(p - buf) - RP_BLOCK_HEADER_SIZE;
  buf[0] = RP_BLOCK_STOP;
  buf[1] = buf[2] = buf[3] = 0;
  putU32(buf + 4, len);
  writeAll(g.fd, buf, RP_BLOCK_HEADER_SIZE + len);
}

} // namespace

void flushThread(ThreadState *ts) {
  if (!ts->count)
    return;
  // The buffer is emptied under the file lock too: the exit flusher (which
  // takes it) then sees either the block still unwritten or the buffer
  // empty, never a written block still published (it would write it twice).
  spinLock(&g.fileLock);
  if (!g.finished)
    writeEventsLocked(ts->key, ts->firstSeq, ts->buf, ts->len, ts->count);
  ts->count = 0;
  ts->len = 0;
  ts->prevLoc = 0; // location deltas restart in every block
  ts->firstSeq = ts->nextSeq;
  __atomic_store_n(&ts->published, 0, __ATOMIC_RELEASE);
  spinUnlock(&g.fileLock);
  checkTraceBytes();
}

void finishTrace(bool fromSignal, const StopNote *note) {
  if (!g.initialized)
    return;
  int tid = static_cast<int>(syscall(SYS_gettid));
  if (__atomic_exchange_n(&g.finishing, 1, __ATOMIC_SEQ_CST)) {
    // Another thread is writing the trace (a fatal signal's handler while
    // this one returns from main, say): the process must not end before it
    // is done. It may be this very thread, interrupted by a signal.
    int finisher = __atomic_load_n(&g.finisherTid, __ATOMIC_ACQUIRE);
    struct timespec nap = {0, 1000000};
    for (int ms = 0; finisher != tid && ms < 2000 &&
                     !__atomic_load_n(&g.finished, __ATOMIC_ACQUIRE);
         ++ms)
      nanosleep(&nap, nullptr);
    return;
  }
  __atomic_store_n(&g.finisherTid, tid, __ATOMIC_RELEASE);
  // No thread has a fast path from here on, before any hook can see
  // stopped(): the fast path does not look at g.stopping, so the token's
  // holder could otherwise drop an event on the general path (a try-lock's
  // acquisition) and then record the next ones (its critical section's
  // accesses) on the fast path until the token is revoked. A thread that
  // sees stopping (acquire) sees these stores; threads attaching meanwhile
  // look at g.finishing (newThreadState).
  for (ThreadState *ts = __atomic_load_n(&g.threads, __ATOMIC_ACQUIRE); ts;
       ts = ts->next)
    __atomic_store_n(&ts->fastMask, 0, __ATOMIC_SEQ_CST);
  __atomic_store_n(&g.stopping, 1, __ATOMIC_SEQ_CST);
  tokenRevoke(fromSignal);
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
      writeEventsLocked(ts->key, ts->firstSeq, ts->buf, len, count);
    // A condition wait that has not returned: its release half.
    if (uint32_t n = __atomic_load_n(&ts->waitRelLen, __ATOMIC_ACQUIRE))
      writeEventsLocked(ts->key, ts->waitRelSeq, ts->waitRel, n, 1);
    events += ts->events;
  }
  if (note)
    writeStopLocked(*note);
  uint8_t end[RP_BLOCK_HEADER_SIZE] = {RP_BLOCK_END, 0, 0, 0, 0, 0, 0, 0};
  writeAll(g.fd, end, sizeof end);
  close(g.fd);
  __atomic_store_n(&g.finished, true, __ATOMIC_RELEASE);
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

/// At the end of the process, before the trace is written: threads that
/// can run (they wait for the token, or hold it) get up to exit_grace_ms
/// to record first. Natively they would have run beside the thread that
/// ends the process; recorded, they may still be waiting for their turn
/// (a thread created just before main returns, say).
void exitGrace() {
  if (gReplayOn || stopped() || !g.opts.exit_grace_ms)
    return;
  struct timespec start, now, nap = {0, 100000};
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (;;) {
    if (!tokenWanted())
      return;
    clock_gettime(CLOCK_MONOTONIC, &now);
    int64_t ms = (now.tv_sec - start.tv_sec) * 1000 +
                 (now.tv_nsec - start.tv_nsec) / 1000000;
    if (ms >= static_cast<int64_t>(g.opts.exit_grace_ms))
      return;
    nanosleep(&nap, nullptr);
  }
}

/// Every signal whose default action ends the process.
const int kFatalSignals[] = {SIGSEGV, SIGBUS,  SIGFPE,   SIGILL,  SIGABRT,
                             SIGTERM, SIGINT,  SIGHUP,   SIGQUIT, SIGPIPE,
                             SIGALRM, SIGUSR1, SIGUSR2,  SIGXCPU, SIGXFSZ,
                             SIGSYS,  SIGPROF, SIGVTALRM};

/// The process's pending signals (/proc/self/status ShdPnd: sigpending()
/// would only show the ones this thread blocks), as a bit mask.
uint64_t sharedPending() {
  char v[32];
  if (!procStatusField("ShdPnd:", v, sizeof v))
    return 0;
  uint64_t mask = 0;
  for (const char *q = v; (*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f');
       ++q)
    mask =
        mask << 4 | static_cast<uint64_t>(*q <= '9' ? *q - '0' : *q - 'a' + 10);
  return mask;
}

/// A fatal signal is being handled, or is pending for a thread to handle.
bool fatalSignalComing() {
  if (__atomic_load_n(&g.fatalSignal, __ATOMIC_ACQUIRE))
    return true;
  uint64_t pending = sharedPending();
  for (int sig : kFatalSignals)
    if (pending >> (sig - 1) & 1)
      return true;
  return false;
}

/// While a fatal signal is handled on another thread (or about to be), the
/// process is as good as dead: natively the signal would have ended it
/// already. So an exit() meanwhile lets the handler write the trace (with
/// its STOP note) and end the process with the signal's status, waiting
/// for that (a second at most) instead of racing it.
void awaitFatalSignal() {
  struct timespec nap = {0, 1000000};
  for (int ms = 0; ms < 1000 && fatalSignalComing(); ++ms)
    nanosleep(&nap, nullptr);
}

void atExit() {
  awaitFatalSignal();
  ThreadState *ts = tlsState;
  if (ts && !ts->ended && !ts->inHook)
    threadEnd(ts);
  exitGrace();
  replayAtExit(0);
  finishTrace(false);
  awaitFatalSignal(); // one that came while this thread wrote the trace
}

RP_TLS bool tlsInFatalSignal;

void onFatalSignal(int sig) {
  // A second fatal signal while this thread handles one (`run` forwards
  // SIGTERM after the terminal's SIGINT): the first one's handler finishes
  // the trace and ends the process; ending it here would cut the trace. A
  // fault in the handler itself comes back when the faulting instruction
  // does: with the default action, which ends the process.
  if (tlsInFatalSignal) {
    if (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL)
      signal(sig, SIG_DFL);
    return;
  }
  tlsInFatalSignal = true;
  // The first fatal signal ends the process, as natively; a later one on
  // another thread (SIGTERM from `run` after the terminal's SIGINT) waits
  // for it, and only ends the process itself if that does not happen.
  int first = 0;
  if (__atomic_compare_exchange_n(&g.fatalSignal, &first, sig, false,
                                  __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    // The grace as at exit, unless the signal came inside the recorder
    // (its locks may be held by the code it interrupted).
    ThreadState *ts = tlsState;
    if (!ts || __atomic_load_n(&ts->inHook, __ATOMIC_ACQUIRE) == kOutside) {
      beforeBlocking(); // hands the token on if this thread holds it
      exitGrace();
    }
    replayAtExit(sig);
    StopNote note{};
    note.reason = RP_STOP_SIGNAL;
    note.value = static_cast<uint64_t>(sig);
    finishTrace(true, &note);
  } else {
    struct timespec nap = {0, 1000000};
    for (int ms = 0; ms < 2000; ++ms)
      nanosleep(&nap, nullptr);
  }
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

void recordSimple(ThreadState *ts, unsigned code, uint32_t loc,
                  const uint64_t *ops, int n) {
  unsigned kind = code & RP_KIND_MASK; // code: with RP_PAST_DEADLINE
  if (RP_UNLIKELY(gReplayOn))
    replayCommit(ts, kind, loc, ops, n, 0, 0);
  uint8_t *p = beginCode(ts, code, loc);
  for (int i = 0; i < n; ++i)
    p = putVarint(p, ops[i]);
  endRecord(ts, p, loc);
  if (kind == RP_ACQUIRE || kind == RP_RACQUIRE)
    ++ts->locksHeld;
  else if (kind == RP_RELEASE && ts->locksHeld)
    --ts->locksHeld;
  // The wait's return is recorded: it implies the release half. (Inside
  // the hook: the exit flusher sees both or neither.)
  if (kind == RP_WAIT)
    __atomic_store_n(&ts->waitRelLen, 0, __ATOMIC_RELEASE);
}

void reserveWaitRelease(ThreadState *ts, uint64_t lock, uint32_t loc) {
  uint8_t *p = ts->waitRel;
  *p++ = static_cast<uint8_t>(RP_RELEASE | (loc ? RP_HAS_SRC : 0));
  p = putVarint(p, lock);
  if (loc)
    p = putVarint(p, loc);
  ts->waitRelSeq = ts->nextSeq;
  skipSeqs(ts, 1); // a gap in the trace unless the wait never returns
  __atomic_store_n(&ts->waitRelLen, static_cast<uint32_t>(p - ts->waitRel),
                   __ATOMIC_RELEASE);
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

} // namespace racepredict::rt
