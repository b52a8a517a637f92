//===- record/atomic_hooks.cpp - Atomic loads, stores, RMWs and CASes -----===//
//
// Every atomic is performed sequentially consistent by the hook, with the
// token held, whatever ordering the program asked for (hooks.def).
//
#include "access_record.h"

#include "racepredict/abi/runtime.h"

namespace racepredict::rt {
namespace {

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

} // namespace
} // namespace racepredict::rt

using namespace racepredict::rt;

extern "C" {

#define RP_SIZED(N, T)                                                         \
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

} // extern "C"
