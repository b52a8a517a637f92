//===- record/thread_state.cpp - Thread states: birth, end and reuse ------===//
//
// A thread's state (ThreadState and its event buffer) outlives the thread:
// the exit flusher walks every state, and a token waiter may still look at
// a holder that has just ended. So states are never unmapped; an ended
// thread's state goes to a free list once its last block is written, and
// the next new thread takes it (type-stable memory, as TSan's thread
// contexts). Memory is thus bounded by the most threads alive at once, not
// by all threads ever made: a program that creates and joins 20,000 threads
// had 40,000 mappings (two per thread, 5 GB of address space with the
// 256 KiB buffers) and failed with `out of memory (mmap failed)` under a
// memory limit (bench/RESULTS.md, thread churn).
//
#include "state.h"

#include "../common/raw_io.h"

#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace racepredict::rt {

RP_TLS ThreadState *tlsState;
RP_TLS bool tlsEnded;

namespace {

ThreadState *popFree() {
  spinLock(&g.freeLock);
  ThreadState *ts = g.freeStates;
  if (ts)
    g.freeStates = ts->nextFree;
  spinUnlock(&g.freeLock);
  return ts;
}

/// Gives `ts`, ended and written out, to the next new thread.
void retire(ThreadState *ts) {
  // The pages go back to the kernel; the mapping stays valid for the exit
  // flusher, which may still look at this (now empty) buffer.
  madvise(ts->buf, ts->cap, MADV_DONTNEED);
  spinLock(&g.freeLock);
  ts->nextFree = g.freeStates;
  g.freeStates = ts;
  spinUnlock(&g.freeLock);
}

} // namespace

ThreadState *newThreadState(uint32_t threadKey, int tid) {
  ThreadState *ts = popFree();
  if (ts) {
    // Everything but the buffer and the place in the list of all states
    // starts afresh (the others read only fields that are 0 in a retired
    // state: its buffer is written out, it holds no token, it waits for
    // nothing).
    uint8_t *buf = ts->buf;
    uint32_t cap = ts->cap;
    ThreadState *next = ts->next;
    memset(static_cast<void *>(ts), 0, sizeof *ts);
    ts->buf = buf;
    ts->cap = cap;
    ts->next = next;
  } else {
    ts = static_cast<ThreadState *>(rawAlloc(sizeof(ThreadState)));
    ts->cap = static_cast<uint32_t>(g.opts.buffer);
    ts->buf = static_cast<uint8_t *>(rawAlloc(ts->cap));
    ThreadState *head = __atomic_load_n(&g.threads, __ATOMIC_ACQUIRE);
    do
      ts->next = head;
    while (!__atomic_compare_exchange_n(&g.threads, &head, ts, true,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
  }
  ts->key = threadKey;
  ts->tid = tid;
  // branch_deps=all turns every decision into a plain branch: not the fast
  // path's precise one.
  uint32_t fast = gReplayOn || gTokenFence ? 0
                  : g.opts.plainBranches   ? g.opts.eventMask & ~kRecBranch
                                           : g.opts.eventMask;
  if (fast & kRecAccess && !g.opts.plainWrites)
    fast |= kFastWriteDeps;
  __atomic_store_n(&ts->fastMask, fast, __ATOMIC_SEQ_CST);
  // The exit flusher turns every fast path off before recording stops; a
  // state it may have passed over keeps none either (finishTrace).
  if (finishing())
    __atomic_store_n(&ts->fastMask, 0, __ATOMIC_SEQ_CST);
  if (gReplayOn)
    replayAttach(ts);
  return ts;
}

void retireUnstarted(ThreadState *ts) {
  __atomic_sub_fetch(&g.starting, 1, __ATOMIC_RELEASE);
  ts->ended = true;
  retire(ts);
}

int currentTid() { return static_cast<int>(syscall(SYS_gettid)); }

void threadEnd(ThreadState *ts) {
  // Recorded whatever events= says (kRecThread), and last: the thread hands
  // the token on for good.
  __atomic_store_n(&ts->fastMask, 0, __ATOMIC_SEQ_CST);
  if (!enterAs(ts, kRecThread)) {
    ts->ended = true;
    return;
  }
  // Once recording has stopped the buffer is the exit flusher's to write:
  // it must keep its records (and the state is not reused).
  bool flushed = !stopped();
  if (flushed) {
    recordSimple(ts, RP_END, 0, nullptr, 0);
    flushThread(ts);
  }
  ts->ended = true;
  tokenRelease(ts);
  __atomic_store_n(&ts->inHook, kOutside, __ATOMIC_RELEASE);
  // From here on this thread records nothing, whatever it still runs (TLS
  // destructors, a C++ thread_local's mutex): no state, and none attached.
  tlsState = nullptr;
  tlsEnded = true;
  if (flushed)
    retire(ts);
}

} // namespace racepredict::rt
