//===- record/custom_hooks.cpp - Custom events of the instrumentation spec ===//
//
// racepredict-cc --events SPEC makes the pass call __racepredict_custom at
// the program points the spec names (docs/properties.md). Arguments are
// recorded as numbers: the custom name space's keys are the values
// themselves (the reader prints keys without a name as numbers). Event
// names and literal arguments are symbols: the first use of each gets a key
// from a reserved range and a NAMES entry, so the trace carries the text.
//
#include "state.h"
#include "trace_names.h"

#include "../common/raw_io.h"

#include "racepredict/abi/runtime.h"

#include <string.h>

namespace racepredict::rt {
namespace {

/// Keys of names: "RP" in the top 16 bits, a counter below, far from the
/// small integers and user-space addresses that arguments usually are.
constexpr uint64_t kSymbolTag = 0x5250ull << 48;
volatile uint32_t gSymbolLock;
uint64_t gSymbols;

uint64_t symbolKey(__racepredict_symbol *s) {
  uint64_t k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
  if (RP_LIKELY(k != 0))
    return k;
  spinLock(&gSymbolLock);
  k = s->key;
  if (!k) {
    k = kSymbolTag | ++gSymbols;
    // Written before any event that uses the key can be flushed.
    const char *name = s->name ? s->name : "";
    writeName(RP_NS_CUSTOM, k, name, rawStrlen(name));
    __atomic_store_n(&s->key, k, __ATOMIC_RELEASE);
  }
  spinUnlock(&gSymbolLock);
  return k;
}

/// An unrecorded peek through a pointer (the monitor reads; the program
/// does not): `levels` more pointers, then `size` bytes, sign-extended.
uint64_t deref(uint64_t addr, unsigned levels, unsigned size) {
  for (unsigned l = 0; l < levels && addr; ++l) {
    uint64_t next = 0;
    memcpy(&next, reinterpret_cast<const void *>(addr), sizeof(void *));
    addr = next;
  }
  if (!addr)
    return 0;
  const void *p = reinterpret_cast<const void *>(addr);
  switch (size) {
  case 1: {
    int8_t v;
    memcpy(&v, p, 1);
    return static_cast<uint64_t>(static_cast<int64_t>(v));
  }
  case 2: {
    int16_t v;
    memcpy(&v, p, 2);
    return static_cast<uint64_t>(static_cast<int64_t>(v));
  }
  case 4: {
    int32_t v;
    memcpy(&v, p, 4);
    return static_cast<uint64_t>(static_cast<int64_t>(v));
  }
  default: {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
  }
  }
}

} // namespace
} // namespace racepredict::rt

using namespace racepredict::rt;

extern "C" void __racepredict_custom(void *desc, uint64_t a0, uint64_t a1,
                                     uint64_t a2, uint64_t a3, uint32_t loc) {
  // Always recorded, like thread lifecycle events: the user asked for them.
  ThreadState *ts = enter(kRecThread);
  if (!ts)
    return;
  if (stopped()) {
    leave(ts);
    return;
  }
  auto *d = static_cast<__racepredict_event_desc *>(desc);
  uint64_t in[4] = {a0, a1, a2, a3}, keys[4];
  uint32_t n = d->nargs < 4 ? d->nargs : 4;
  for (uint32_t i = 0; i < n; ++i) {
    unsigned k = d->kind[i];
    switch (k & 3) {
    case RP_ARG_SYMBOL:
      keys[i] = symbolKey(reinterpret_cast<__racepredict_symbol *>(in[i]));
      break;
    case RP_ARG_DEREF:
      keys[i] = deref(in[i], (k >> 2) & 3, k >> 4);
      break;
    default:
      keys[i] = in[i];
      break;
    }
  }
  uint64_t name = symbolKey(&d->name);
  if (!stopped()) {
    // A scheduling point like any recorded event (its ordinal counts);
    // a violation schedule also needs what it was called with.
    if (RP_UNLIKELY(gReplayOn))
      replayCustom(ts, loc, d, in, keys, n);
    uint8_t *p = beginCode(ts, RP_CUSTOM, loc);
    p = putVarint(p, name);
    p = putVarint(p, n);
    for (uint32_t i = 0; i < n; ++i)
      p = putVarint(p, keys[i]);
    endRecord(ts, p, loc);
  }
  leave(ts);
}
