//===- record/access_record.h - Recording one access ---------- -*- C++ -*-===//
//
// What the access hooks share (access_hooks.cpp, range_hooks.cpp,
// atomic_hooks.cpp, string_hooks.cpp): the value encoding and the two ways
// of recording an access, the general one (enter/leave) and the fast one.
//
#pragma once

#include "state.h"

#include "racepredict/abi/runtime.h"

#include <string.h>

namespace racepredict::rt {

inline int64_t signExtend(uint64_t raw, unsigned size) {
  switch (size) {
  case 1:
    return static_cast<int8_t>(raw);
  case 2:
    return static_cast<int16_t>(raw);
  case 4:
    return static_cast<int32_t>(raw);
  default:
    return static_cast<int64_t>(raw);
  }
}

/// Records an access; its location is its address (the reader renames it
/// after writes the trace cannot show, trace/hidden_writes.cpp).
__attribute__((always_inline)) inline void
putAccess(ThreadState *ts, unsigned kind, unsigned size, int64_t value,
          uint32_t loc, const void *addr) {
  if (RP_UNLIKELY(gReplayOn))
    replayCommit(ts, kind, loc, nullptr, 0, key(addr), size);
  uint8_t *p = beginAccess(ts, kind, key(addr), size, loc);
  p = putVarint(p, zigzag(value));
  endRecord(ts, p, loc);
}

template <typename T> uint64_t rawBits(T v) {
  uint64_t raw = 0;
  memcpy(&raw, &v, sizeof v);
  return raw;
}

/// The common case of a hook, without any call (so the hook needs no stack
/// frame): this thread holds the token with quantum left, its call stack
/// is already in the trace, its buffer has room for the record and
/// nothing unusual is on (replay, the fenced token, events= without the
/// category: fastMask). Returns null, having changed nothing, otherwise;
/// else the caller records and lowers inHook itself. Recording stopped is
/// not checked: the exit flusher clears every fastMask before it sets
/// g.stopping (finishTrace), so a thread that has seen it stopped comes
/// here no more; a record written after the flusher's snapshot is simply
/// not written out, and the room check keeps the buffer from overflowing
/// meanwhile.
inline ThreadState *enterFast(uint32_t category) {
  ThreadState *ts = tlsState;
  if (RP_UNLIKELY(
          !ts || ts->inHook ||
          !(__atomic_load_n(&ts->fastMask, __ATOMIC_RELAXED) & category)))
    return nullptr;
  ts->inHook = kInHook;
  __atomic_signal_fence(__ATOMIC_SEQ_CST); // Dekker with a stealer: enterAs
  if (RP_LIKELY(__atomic_load_n(&gToken.owner, __ATOMIC_RELAXED) == ts &&
                __atomic_load_n(&ts->quantum, __ATOMIC_RELAXED) > 1 &&
                ts->len + kMaxRecord <= ts->cap &&
                ts->synced == ts->traceDepth && ts->synced == shownDepth(ts))) {
    takeQuantum(ts);
    return ts;
  }
  __atomic_store_n(&ts->inHook, kOutside, __ATOMIC_RELEASE);
  return nullptr;
}

/// Records a plain access on the fast path (see enterFast) and leaves.
__attribute__((always_inline)) inline void
putAccessFast(ThreadState *ts, unsigned kind, unsigned size, int64_t value,
              uint32_t loc, const void *addr) {
  // The stack is in the trace (enterFast): no stack record.
  uint8_t *p = putAccessHead(ts, ts->buf + ts->len, kind, key(addr), size, loc);
  p = putVarint(p, zigzag(value));
  endRecordFast(ts, p, loc);
  __atomic_store_n(&ts->inHook, kOutside, __ATOMIC_RELEASE);
}

/// The thread state of a hook recording several events (a range copy).
/// Replay gates each of them as if it were its own hook (leave, then enter
/// again): a race witness may put another thread's step between two of
/// them, e.g. end at a memcpy's first racing chunk (docs/replay.md).
struct MultiEventHook {
  ThreadState *ts;
  bool started = false;
  /// Before each event: false when it must not be recorded (recording
  /// stopped, or replay is over and the thread no longer records).
  bool next() {
    if (!ts)
      return false;
    if (started && RP_UNLIKELY(gReplayOn)) {
      leave(ts);
      ts = enter(kRecAccess);
      if (!ts)
        return false;
    }
    started = true;
    return true;
  }
  void finish() {
    if (ts)
      leave(ts);
  }
  /// finish() for a hook whose result is no read the pass can name.
  template <typename T> T finishWith(T result) {
    __racepredict_read_seq = 0;
    finish();
    return result;
  }
};

/// Records a branch that depends on every earlier read of the thread
/// (branch_hooks.cpp), unless there was none since the last one.
void plainBranch(ThreadState *ts, uint32_t loc);

/// Records the reads of [src, src + n) in the chunks load_range would use
/// (memcmp, memchr: memory compared as memcpy copies it), for a hook that
/// has entered already (h.ts null: nothing is recorded).
void readChunks(MultiEventHook &h, const void *src, uint64_t n, uint32_t loc);

/// Records as writes the n bytes now at dst, which a libc call put there
/// itself (fread, fgets, sprintf): nothing is copied. Byte by byte when
/// `bytes` (a string, see ByteScan), else in load_range's chunks.
void wroteChunks(MultiEventHook &h, const void *dst, uint64_t n, bool bytes,
                 uint32_t loc);

// The string functions' accesses (string_hooks.cpp, string_read_hooks.cpp),
// byte by byte: strings are byte arrays, written char by char as often as
// copied, and the analysis compares accesses of one size at one address
// only (docs/recording.md, "Limitations"). A chunking by alignment and
// length made "job-7" copied in as 2-byte chunks and a 4-byte read of its
// first four bytes different locations: no race.
//
// A hook scans as libc does, deciding after each byte whether to read on
// from the bytes it has read, so that under replay, where each byte is
// read at its own turn, the call reads what the schedule's writes between
// its bytes left and stops where that makes it stop; measuring the string
// first and then reading that many bytes one turn at a time diverged from
// a witness putting another thread's write inside the call. Recording, the
// token is held throughout and the scan reads what libc would.
struct ByteScan {
  MultiEventHook &h; // h.ts null: nothing is recorded, the bytes still move
  uint32_t loc;
  /// The byte at src, recorded as a 1-byte read.
  uint8_t read(const void *src);
  /// Copies the byte at src to dst (a read and a write); returns it.
  uint8_t copy(void *dst, const void *src);
  /// After the byte (or pair) with index i of a scan of at most bound:
  /// whether the function reads on (end: the byte ended it -- the
  /// terminator, a difference, the character sought). Unless the bound
  /// alone ends the scan, that was decided by the bytes read: a plain
  /// branch, so that a reordering that changes one of them cannot keep the
  /// events after it -- without it a witness let strcmp's first byte read
  /// another value, and its replay read on where the recording stopped.
  bool onward(bool end, size_t i, size_t bound) {
    if ((end || i + 1 < bound) && h.next() && !stopped())
      plainBranch(h.ts, loc);
    return !end;
  }
};

/// Writes n copies of byte (strncpy's zero fill, a copy's terminator).
void setBytes(MultiEventHook &h, void *dst, uint8_t byte, uint64_t n,
              uint32_t loc);

} // namespace racepredict::rt
