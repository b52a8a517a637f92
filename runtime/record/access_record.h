//===- record/access_record.h - Recording one access ---------- -*- C++ -*-===//
//
// What the access hooks share (access_hooks.cpp, range_hooks.cpp,
// atomic_hooks.cpp, string_hooks.cpp): the value encoding and the two ways
// of recording an access, the general one (enter/leave) and the fast one.
//
#pragma once

#include "state.h"

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
/// not checked: a record written after the exit flusher's snapshot is
/// simply not written out (flushing, on the general path, checks it), and
/// the room check keeps the buffer from overflowing meanwhile.
inline ThreadState *enterFast(uint32_t category) {
  ThreadState *ts = tlsState;
  if (RP_UNLIKELY(!ts || ts->inHook || !(ts->fastMask & category)))
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

} // namespace racepredict::rt
