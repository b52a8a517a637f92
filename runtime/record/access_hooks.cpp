//===- record/access_hooks.cpp - Loads, stores, ranges, atomics, branches -===//
//
// Every hook performs the access itself while it holds the recording token
// (state.h, docs/recording.md), so the value it records is the one the
// trace order implies. Values are recorded sign-extended from the access
// size, so that a 4-byte -1 reads as -1 whichever hook (scalar or range
// chunk) produced it.
//
#include "state.h"

#include "racepredict/abi/runtime.h"

#include <string.h>

extern "C" {
void __racepredict_load_range(void *addr, void *buf, uint64_t n, uint32_t loc);
void __racepredict_store_range(void *addr, void *buf, uint64_t n, uint32_t loc);
}

namespace racepredict::rt {
namespace {

int64_t signExtend(uint64_t raw, unsigned size) {
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

/// The largest power-of-two chunk (<= 8) that keeps every chunk of the
/// range aligned, so chunks line up with the program's scalar accesses.
unsigned chunkSize(uintptr_t a, uintptr_t b, uint64_t n) {
  uint64_t bits = a | b | n;
  for (unsigned g = 8; g > 1; g /= 2)
    if ((bits & (g - 1)) == 0)
      return g;
  return 1;
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
};

/// Copies one aligned chunk from `src` to `dst`, recording the read of
/// `src` (when recordRead) and the write of `dst` (when recordWrite).
void copyChunk(MultiEventHook &h, void *dst, const void *src, unsigned g,
               bool recordRead, bool recordWrite, uint32_t loc) {
  uint64_t raw = 0;
  memcpy(&raw, src, g);
  if (recordRead && h.next()) {
    if (!stopped())
      putAccess(h.ts, RP_READ, g, signExtend(raw, g), loc, src);
    h.ts->readsSinceBranch = true;
  }
  memcpy(dst, &raw, g);
  if (recordWrite && h.next() && !stopped())
    putAccess(h.ts, RP_WRITE, g, signExtend(raw, g), loc, dst);
  // Long ranges fill the buffer: flush between chunks, not only at leave().
  if (h.ts)
    flushIfFull(h.ts, kMaxRecord * 2);
}

/// A range copy where either side may be private (the pass passes its own
/// temporary for load_range/store_range). Overlapping moves run backwards
/// when the destination is above the source, as memmove does.
void copyRange(void *dst, const void *src, uint64_t n, bool recordRead,
               bool recordWrite, uint32_t loc) {
  if (!n)
    return;
  MultiEventHook h{enter(kRecAccess)};
  if (!h.ts) {
    memmove(dst, src, n);
    return;
  }
  auto d = reinterpret_cast<uintptr_t>(dst);
  auto s = reinterpret_cast<uintptr_t>(src);
  unsigned g = chunkSize(recordWrite ? d : 0, recordRead ? s : 0, n);
  bool backwards = d > s && d < s + n;
  for (uint64_t i = 0; i < n; i += g) {
    uint64_t off = backwards ? n - g - i : i;
    copyChunk(h, reinterpret_cast<void *>(d + off),
              reinterpret_cast<const void *>(s + off), g, recordRead,
              recordWrite, loc);
  }
  __racepredict_read_seq = 0;
  h.finish();
}

template <typename T> T atomicLoad(T *addr, uint32_t loc) {
  ThreadState *ts = enter(kRecAtomic);
  T v = __atomic_load_n(addr, __ATOMIC_SEQ_CST);
  if (!ts) {
    __racepredict_read_seq = 0;
    return v;
  }
  uint64_t raw = rawBits(v);
  if (!stopped()) {
    putAccess(ts, RP_ATOMIC_READ, sizeof v, signExtend(raw, sizeof v), loc,
              addr);
    noteRead(ts);
  }
  leave(ts);
  return v;
}

template <typename T> void atomicStore(T *addr, T v, uint32_t loc) {
  ThreadState *ts = enter(kRecAtomic);
  __atomic_store_n(addr, v, __ATOMIC_SEQ_CST);
  if (!ts)
    return;
  if (!stopped())
    putAccess(ts, RP_ATOMIC_WRITE, sizeof v, signExtend(v, sizeof v), loc,
              addr);
  leave(ts);
}

template <typename T> T applyRmw(T old, T v, uint32_t op) {
  switch (op) {
  case RP_RMW_XCHG:
    return v;
  case RP_RMW_ADD:
    return static_cast<T>(old + v);
  case RP_RMW_SUB:
    return static_cast<T>(old - v);
  case RP_RMW_AND:
    return static_cast<T>(old & v);
  case RP_RMW_NAND:
    return static_cast<T>(~(old & v));
  case RP_RMW_OR:
    return static_cast<T>(old | v);
  case RP_RMW_XOR:
    return static_cast<T>(old ^ v);
  case RP_RMW_MAX:
    return signExtend(old, sizeof(T)) >= signExtend(v, sizeof(T)) ? old : v;
  case RP_RMW_MIN:
    return signExtend(old, sizeof(T)) <= signExtend(v, sizeof(T)) ? old : v;
  case RP_RMW_UMAX:
    return old >= v ? old : v;
  case RP_RMW_UMIN:
    return old <= v ? old : v;
  case RP_RMW_FADD:
  case RP_RMW_FSUB: {
    // Only float (4) and double (8) exist as LLVM atomicrmw fadd types here.
    if (sizeof(T) == 4) {
      float a, b;
      memcpy(&a, &old, 4);
      memcpy(&b, &v, 4);
      a = op == RP_RMW_FADD ? a + b : a - b;
      T r;
      memcpy(&r, &a, 4);
      return r;
    }
    if (sizeof(T) == 8) {
      double a, b;
      memcpy(&a, &old, 8);
      memcpy(&b, &v, 8);
      a = op == RP_RMW_FADD ? a + b : a - b;
      T r;
      memcpy(&r, &a, 8);
      return r;
    }
    return old;
  }
  default:
    return old;
  }
}

template <typename T> T atomicRmw(T *addr, T v, uint32_t op, uint32_t loc) {
  ThreadState *ts = enter(kRecAtomic);
  // A CAS loop stays correct against uninstrumented code updating the same
  // word (libstdc++ internals) even though instrumented code waits for the
  // token.
  T old = __atomic_load_n(addr, __ATOMIC_SEQ_CST), nv;
  do
    nv = applyRmw(old, v, op);
  while (!__atomic_compare_exchange_n(addr, &old, nv, false, __ATOMIC_SEQ_CST,
                                      __ATOMIC_SEQ_CST));
  if (!ts) {
    __racepredict_read_seq = 0;
    return old;
  }
  if (!stopped()) {
    if (RP_UNLIKELY(gReplayOn))
      replayCommit(ts, RP_ATOMIC_RMW, loc, nullptr, 0, key(addr), sizeof(T));
    uint8_t *p = beginAccess(ts, RP_ATOMIC_RMW, key(addr), sizeof(T), loc);
    p = putVarint(p, zigzag(signExtend(nv, sizeof(T))));
    p = putVarint(p, zigzag(signExtend(old, sizeof(T))));
    endRecord(ts, p, loc);
    noteRead(ts);
  }
  leave(ts);
  return old;
}

template <typename T>
T atomicCas(T *addr, T expected, T desired, uint32_t loc) {
  ThreadState *ts = enter(kRecAtomic);
  T old = expected;
  bool ok = __atomic_compare_exchange_n(addr, &old, desired, false,
                                        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  if (!ts) {
    __racepredict_read_seq = 0;
    return old;
  }
  if (!stopped()) {
    // A failed CAS only read; a successful one is a read-modify-write.
    if (RP_UNLIKELY(gReplayOn))
      replayCommit(ts, ok ? RP_ATOMIC_RMW : RP_ATOMIC_READ, loc, nullptr, 0,
                   key(addr), sizeof(T));
    uint8_t *p = beginAccess(ts, ok ? RP_ATOMIC_RMW : RP_ATOMIC_READ, key(addr),
                             sizeof(T), loc);
    if (ok)
      p = putVarint(p, zigzag(signExtend(desired, sizeof(T))));
    p = putVarint(p, zigzag(signExtend(old, sizeof(T))));
    endRecord(ts, p, loc);
    noteRead(ts);
  }
  leave(ts);
  return old;
}

void plainBranch(ThreadState *ts, uint32_t loc) {
  // A plain branch with no read since the previous plain branch adds no
  // constraint (its dependences are a subset of that branch's): drop it.
  if (!ts->readsSinceBranch)
    return;
  if (stopped())
    return;
  if (RP_UNLIKELY(gReplayOn))
    replayCommit(ts, RP_BRANCH, loc, nullptr, 0, 0, 0);
  ts->plainSeq = ts->nextSeq;
  uint8_t *p = beginCode(ts, RP_BRANCH, loc);
  p = putVarint(p, 0);
  endRecord(ts, p, loc);
  ts->readsSinceBranch = false;
}

/// True when a branch on exactly these reads adds nothing to what the
/// thread's recorded branches already require (the model makes every event
/// depend on all earlier branches of its thread, docs/semantics.md): each
/// read comes before the last recorded plain branch, which depends on all
/// of them, or the set is the previous precise branch's. Only this thread's
/// own seqs are compared, so a replay decides the same.
bool branchCovered(ThreadState *ts, uint64_t *deps, uint32_t m) {
  bool beforePlain = true;
  for (uint32_t k = 0; k < m; ++k)
    beforePlain &= deps[k] < ts->plainSeq;
  if (beforePlain)
    return true;
  // Sorted, so that the same set compares equal whatever the order.
  for (uint32_t k = 1; k < m; ++k)
    for (uint32_t j = k; j > 0 && deps[j - 1] > deps[j]; --j) {
      uint64_t t = deps[j];
      deps[j] = deps[j - 1];
      deps[j - 1] = t;
    }
  bool same = m == ts->prevDepCount;
  for (uint32_t k = 0; k < m && same; ++k)
    same = deps[k] == ts->prevDeps[k];
  return same;
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
  }                                                                            \
  T __racepredict_atomic_load##N(void *a, uint32_t loc) {                      \
    return atomicLoad<T>(static_cast<T *>(a), loc);                            \
  }                                                                            \
  void __racepredict_atomic_store##N(void *a, T v, uint32_t loc) {             \
    atomicStore<T>(static_cast<T *>(a), v, loc);                               \
  }                                                                            \
  T __racepredict_atomic_rmw##N(void *a, T v, uint32_t op, uint32_t loc) {     \
    return atomicRmw<T>(static_cast<T *>(a), v, op, loc);                      \
  }                                                                            \
  T __racepredict_atomic_cas##N(void *a, T e, T d, uint32_t loc) {             \
    return atomicCas<T>(static_cast<T *>(a), e, d, loc);                       \
  }
RP_SIZED(1, uint8_t)
RP_SIZED(2, uint16_t)
RP_SIZED(4, uint32_t)
RP_SIZED(8, uint64_t)
#undef RP_SIZED

void __racepredict_load_range(void *addr, void *buf, uint64_t n, uint32_t loc) {
  copyRange(buf, addr, n, true, false, loc);
}
void __racepredict_store_range(void *addr, void *buf, uint64_t n,
                               uint32_t loc) {
  copyRange(addr, buf, n, false, true, loc);
}
void __racepredict_memcpy(void *dst, void *src, uint64_t n, uint32_t loc) {
  copyRange(dst, src, n, true, true, loc);
}
void __racepredict_memmove(void *dst, void *src, uint64_t n, uint32_t loc) {
  copyRange(dst, src, n, true, true, loc);
}

void __racepredict_memset(void *dst, uint8_t byte, uint64_t n, uint32_t loc) {
  if (!n)
    return;
  MultiEventHook h{enter(kRecAccess)};
  if (!h.ts) {
    memset(dst, byte, n);
    return;
  }
  uint8_t pattern[8];
  memset(pattern, byte, sizeof pattern);
  auto d = reinterpret_cast<uintptr_t>(dst);
  unsigned g = chunkSize(d, 0, n);
  for (uint64_t i = 0; i < n; i += g)
    copyChunk(h, reinterpret_cast<void *>(d + i), pattern, g, false, true, loc);
  h.finish();
}

void __racepredict_branch(uint32_t loc) {
  // The common case of a loop: no read since the last plain branch, which
  // plainBranch would drop anyway; decided before enter()'s bookkeeping.
  if (tlsState && !tlsState->readsSinceBranch)
    return;
  ThreadState *ts = enter(kRecBranch);
  if (!ts)
    return;
  plainBranch(ts, loc);
  leave(ts);
}

void __racepredict_branch_private(uint32_t loc) {
  if (RP_LIKELY(!g.opts.plainBranches))
    return;
  ThreadState *ts = enter(kRecBranch);
  if (!ts)
    return;
  plainBranch(ts, loc);
  leave(ts);
}

/// branch_deps beyond the fast path: any number of dependences, unrecorded
/// reads, the plain rule, stack records, waiting for the token.
static __attribute__((noinline)) void branchDepsSlow(uint32_t loc, void *seqs,
                                                     uint32_t n) {
  ThreadState *ts = enter(kRecBranch);
  if (!ts)
    return;
  if (g.opts.plainBranches) {
    plainBranch(ts, loc);
    leave(ts);
    return;
  }
  const auto *deps = static_cast<const uint64_t *>(seqs);
  uint64_t uniq[8];
  uint32_t m = 0;
  bool plain = n > 8;
  for (uint32_t i = 0; i < n && !plain; ++i) {
    // A phi of seqs whose path carried no read (BranchDeps.h kNoRead).
    if (deps[i] == ~uint64_t{0})
      continue;
    // A dependence that was not recorded (events= filter, re-entrancy)
    // cannot be named: fall back to the conservative plain rule.
    if (deps[i] == 0)
      plain = true;
    bool dup = false;
    for (uint32_t k = 0; k < m; ++k)
      dup |= uniq[k] == deps[i];
    if (!dup)
      uniq[m++] = deps[i];
  }
  if (plain) {
    plainBranch(ts, loc);
    leave(ts);
    return;
  }
  if (m == 0 || branchCovered(ts, uniq, m)) {
    leave(ts); // decided by control flow alone here, or already required
    return;
  }
  if (!stopped()) {
    ts->prevDepCount = m;
    for (uint32_t k = 0; k < m; ++k)
      ts->prevDeps[k] = uniq[k];
    if (RP_UNLIKELY(gReplayOn))
      replayCommit(ts, RP_BRANCH, loc, nullptr, 0, 0, 0);
    putBranchDeps(ts, beginCode(ts, RP_BRANCH, loc), uniq, m, loc, false);
  }
  leave(ts);
}

void __racepredict_branch_deps(uint32_t loc, void *seqs, uint32_t n) {
  // The common case: one dependence, the fast path's conditions.
  if (n == 1) {
    if (ThreadState *ts = enterFast(kRecBranch)) {
      uint64_t d = *static_cast<const uint64_t *>(seqs);
      if (RP_LIKELY(d != 0)) {
        if (d != ~uint64_t{0} && d >= ts->plainSeq &&
            !(ts->prevDepCount == 1 && ts->prevDeps[0] == d)) {
          ts->prevDepCount = 1;
          ts->prevDeps[0] = d;
          // The stack is in the trace (enterFast): no stack record.
          uint8_t *p = ts->buf + ts->len;
          *p++ = static_cast<uint8_t>(RP_BRANCH | (loc ? RP_HAS_SRC : 0));
          putBranchDeps(ts, p, &d, 1, loc, true);
        }
        __atomic_store_n(&ts->inHook, kOutside, __ATOMIC_RELEASE);
        return;
      }
      __atomic_store_n(&ts->inHook, kOutside, __ATOMIC_RELEASE);
    }
  }
  branchDepsSlow(loc, seqs, n);
}

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
