//===- record/access_hooks.cpp - Plain loads and stores -------------------===//
//
// Every hook performs the access itself while it holds the recording token
// (state.h, docs/recording.md), so the value it records is the one the
// trace order implies. Values are recorded sign-extended from the access
// size, so that a 4-byte -1 reads as -1 whichever hook (scalar or range
// chunk) produced it. Ranges: range_hooks.cpp; atomics: atomic_hooks.cpp;
// branches: branch_hooks.cpp.
//
#include "access_record.h"

#include "racepredict/abi/runtime.h"

namespace racepredict::rt {
namespace {

/// The general path of a plain load (enter/leave: attaching, waiting for
/// the token, stack records, flushing, replay).
template <typename T>
__attribute__((noinline)) T plainLoadSlow(const void *addr, uint32_t loc) {
  ThreadState *ts = enter(kRecAccess);
  T v;
  memcpy(&v, addr, sizeof v);
  if (!ts) {
    __racepredict_read_seq = 0;
    return v;
  }
  uint64_t raw = rawBits(v);
  if (!stopped()) {
    putAccess(ts, RP_READ, sizeof v, signExtend(raw, sizeof v), loc, addr);
    noteRead(ts);
  } else {
    __racepredict_read_seq = 0;
  }
  leave(ts);
  return v;
}

template <typename T>
__attribute__((noinline)) void plainStoreSlow(void *addr, T v, uint32_t loc) {
  ThreadState *ts = enter(kRecAccess);
  memcpy(addr, &v, sizeof v);
  if (!ts)
    return;
  uint64_t raw = rawBits(v);
  if (!stopped())
    putAccess(ts, RP_WRITE, sizeof v, signExtend(raw, sizeof v), loc, addr);
  leave(ts);
}

template <typename T> T plainLoad(const void *addr, uint32_t loc) {
  ThreadState *ts = enterFast(kRecAccess);
  if (RP_UNLIKELY(!ts))
    return plainLoadSlow<T>(addr, loc);
  T v;
  memcpy(&v, addr, sizeof v);
  putAccessFast(ts, RP_READ, sizeof v, signExtend(rawBits(v), sizeof v), loc,
                addr);
  noteRead(ts);
  return v;
}

template <typename T> void plainStore(void *addr, T v, uint32_t loc) {
  ThreadState *ts = enterFast(kRecAccess);
  if (RP_UNLIKELY(!ts))
    return plainStoreSlow<T>(addr, v, loc);
  memcpy(addr, &v, sizeof v);
  putAccessFast(ts, RP_WRITE, sizeof v, signExtend(rawBits(v), sizeof v), loc,
                addr);
}

/// The dependence list of a store (issue 20) without repeats and without
/// ~0 seqs (no read on the path taken). False when a read cannot be named
/// (not recorded: seq 0; more than 8) or the run asked for RVPredict's rule
/// (write_deps=all): the write is then recorded plain.
bool storeDepList(const void *seqs, uint32_t n, uint64_t *uniq, uint32_t *m) {
  if (n > 8 || g.opts.plainWrites)
    return false;
  const auto *deps = static_cast<const uint64_t *>(seqs);
  *m = 0;
  for (uint32_t i = 0; i < n; ++i) {
    if (deps[i] == ~uint64_t{0})
      continue;
    if (deps[i] == 0)
      return false;
    bool dup = false;
    for (uint32_t k = 0; k < *m; ++k)
      dup |= uniq[k] == deps[i];
    if (!dup)
      uniq[(*m)++] = deps[i];
  }
  return true;
}

/// Writes the body of an RP_WRITE_DEPS record after its head: the value,
/// then the dependences as seq distances back from this event (format.h).
__attribute__((always_inline)) inline uint8_t *
putWriteDeps(ThreadState *ts, uint8_t *p, int64_t value, const uint64_t *deps,
             uint32_t m) {
  p = putVarint(p, zigzag(value));
  p = putVarint(p, m);
  for (uint32_t k = 0; k < m; ++k)
    p = putVarint(p, ts->nextSeq - deps[k]);
  return p;
}

template <typename T>
__attribute__((noinline)) void depStoreSlow(void *addr, T v, uint32_t loc,
                                            const uint64_t *deps, uint32_t m) {
  ThreadState *ts = enter(kRecAccess);
  memcpy(addr, &v, sizeof v);
  if (!ts)
    return;
  if (!stopped()) {
    if (RP_UNLIKELY(gReplayOn))
      replayCommit(ts, RP_WRITE, loc, nullptr, 0, key(addr), sizeof v);
    uint8_t *p = beginAccess(ts, RP_WRITE_DEPS, key(addr), sizeof v, loc);
    p = putWriteDeps(ts, p, signExtend(rawBits(v), sizeof v), deps, m);
    endRecord(ts, p, loc);
  }
  leave(ts);
}

/// Records a store with its dependence list on the fast path (enterFast)
/// and leaves.
template <typename T>
__attribute__((always_inline)) inline void
depStoreFast(ThreadState *ts, void *addr, T v, uint32_t loc,
             const uint64_t *deps, uint32_t m) {
  memcpy(addr, &v, sizeof v);
  // The stack is in the trace (enterFast): no stack record.
  uint8_t *p = putAccessHead(ts, ts->buf + ts->len, RP_WRITE_DEPS, key(addr),
                             sizeof v, loc);
  p = putWriteDeps(ts, p, signExtend(rawBits(v), sizeof v), deps, m);
  endRecordFast(ts, p, loc);
  __atomic_store_n(&ts->inHook, kOutside, __ATOMIC_RELEASE);
}

template <typename T>
__attribute__((noinline)) void depStoreGeneral(void *addr, T v, uint32_t loc,
                                               const void *seqs, uint32_t n) {
  uint64_t deps[8];
  uint32_t m = 0;
  if (!storeDepList(seqs, n, deps, &m))
    return plainStore<T>(addr, v, loc);
  if (ThreadState *ts = enterFast(kRecAccess))
    return depStoreFast<T>(ts, addr, v, loc, deps, m);
  depStoreSlow<T>(addr, v, loc, deps, m);
}

/// A store with its dependence list (hooks.def store_depsN). The common
/// cases, a constant or one recorded read, need no copy of the list.
template <typename T>
void depStore(void *addr, T v, uint32_t loc, const void *seqs, uint32_t n) {
  const auto *deps = static_cast<const uint64_t *>(seqs);
  if (RP_LIKELY(n == 0 || (n == 1 && deps[0] + 1 > 1))) {
    ThreadState *ts = enterFast(kFastWriteDeps);
    if (RP_LIKELY(ts))
      return depStoreFast<T>(ts, addr, v, loc, deps, n);
  }
  depStoreGeneral<T>(addr, v, loc, seqs, n);
}

} // namespace
} // namespace racepredict::rt

using namespace racepredict::rt;

extern "C" {

#define RP_SIZED(N, T)                                                         \
  T __racepredict_load##N(void *a, uint32_t loc) {                             \
    return plainLoad<T>(a, loc);                                               \
  }                                                                            \
  void __racepredict_store##N(void *a, T v, uint32_t loc) {                    \
    plainStore<T>(a, v, loc);                                                  \
  }                                                                            \
  void __racepredict_store_deps##N(void *a, T v, uint32_t loc, void *seqs,     \
                                   uint32_t n) {                               \
    depStore<T>(a, v, loc, seqs, n);                                           \
  }
RP_SIZED(1, uint8_t)
RP_SIZED(2, uint16_t)
RP_SIZED(4, uint32_t)
RP_SIZED(8, uint64_t)
#undef RP_SIZED

RP_TLS uint64_t __racepredict_read_seq;

void __racepredict_stack_alloc(void *addr, uint64_t size, uint32_t loc) {
  ThreadState *ts = enter(kRecAlloc);
  if (!ts)
    return;
  if (!stopped())
    recordBlockEvent(ts, RP_ALLOC, key(addr), size, loc);
  leave(ts);
}

} // extern "C"
