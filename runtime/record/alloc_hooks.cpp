//===- record/alloc_hooks.cpp - malloc/calloc/realloc/free as alloc/free
//---===//
//
// The heap itself is glibc's (__libc_malloc & co.), so the recorder never
// changes the program's allocation behaviour. alloc is recorded after the
// block exists, free before it is returned (both with the token): a reuse
// of the address is then always after the free in the trace. These hooks never
// initialise the runtime or attach a thread (glibc allocates during thread
// start-up).
//
#include "real.h"
#include "state.h"

#include <malloc.h>

namespace racepredict::rt {
namespace {

void recordBlock(unsigned kind, const void *p, uint64_t size, uint32_t loc) {
  if (!p || !__atomic_load_n(&g.initialized, __ATOMIC_ACQUIRE))
    return;
  ThreadState *ts = enterAttached(kRecAlloc);
  if (!ts)
    return;
  if (!stopped())
    recordBlockEvent(ts, kind, key(p), size, loc);
  leave(ts);
}

} // namespace
} // namespace racepredict::rt

using namespace racepredict::rt;

extern "C" {

void *__racepredict_malloc(size_t n, uint32_t loc) {
  void *p = __libc_malloc(n);
  recordBlock(RP_ALLOC, p, n, loc);
  return p;
}

void *__racepredict_calloc(size_t n, size_t size, uint32_t loc) {
  void *p = __libc_calloc(n, size);
  recordBlock(RP_ALLOC, p, static_cast<uint64_t>(n) * size, loc);
  return p;
}

void *__racepredict_realloc(void *old, size_t n, uint32_t loc) {
  if (old)
    recordBlock(RP_FREE, old, malloc_usable_size(old), loc);
  void *p = __libc_realloc(old, n);
  if (p)
    recordBlock(RP_ALLOC, p, n, loc);
  else if (old && n)
    recordBlock(RP_ALLOC, old, malloc_usable_size(old), loc); // still valid
  return p;
}

void __racepredict_free(void *p, uint32_t loc) {
  if (p)
    recordBlock(RP_FREE, p, malloc_usable_size(p), loc);
  __libc_free(p);
}

} // extern "C"
