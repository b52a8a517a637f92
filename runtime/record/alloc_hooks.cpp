//===- record/alloc_hooks.cpp - Heap blocks and mappings as alloc/free ----===//
//
// The heap itself is glibc's (__libc_malloc & co.), so the recorder never
// changes the program's allocation behaviour. alloc is recorded after the
// block exists, free before it is returned (both with the token): a reuse
// of the address is then always after the free in the trace. The analysis
// makes a later object at the same address a new location, and counts a
// free as a write of the object it ends (analysis/memory_objects.h). mmap
// and munmap are recorded the same way (munmap may end part of a mapping).
// These hooks never initialise the runtime or attach a thread (glibc
// allocates during thread start-up).
//
#include "real.h"
#include "state.h"

#include "racepredict/abi/runtime.h"

#include <malloc.h>
#include <sys/mman.h>

namespace racepredict::rt {
namespace {

void recordBlock(unsigned kind, const void *p, uint64_t size, uint32_t loc) {
  if (!p || !__atomic_load_n(&g.initialized, __ATOMIC_ACQUIRE))
    return;
  // Called from uninstrumented code (delete calling free, new calling
  // malloc, strdup): the call site of the instrumented call into it, which
  // the callee's func_enter would have consumed (stack_hooks.cpp).
  if (!loc)
    loc = __racepredict_callsite;
  // Replay: a racing free waits for its step (allocations never wait).
  if (RP_UNLIKELY(gReplayOn) && kind == RP_FREE)
    replayFree(tlsState, loc, key(p), size);
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

int __racepredict_posix_memalign(void **out, size_t align, size_t n,
                                 uint32_t loc) {
  int r = real_posix_memalign()(out, align, n);
  if (r == 0)
    recordBlock(RP_ALLOC, *out, n, loc);
  return r;
}

void *__racepredict_aligned_alloc(size_t align, size_t n, uint32_t loc) {
  void *p = real_aligned_alloc()(align, n);
  recordBlock(RP_ALLOC, p, n, loc);
  return p;
}

void *__racepredict_memalign(size_t align, size_t n, uint32_t loc) {
  void *p = real_memalign()(align, n);
  recordBlock(RP_ALLOC, p, n, loc);
  return p;
}

void *__racepredict_valloc(size_t n, uint32_t loc) {
  void *p = real_valloc()(n);
  recordBlock(RP_ALLOC, p, n, loc);
  return p;
}

void *__racepredict_mmap(void *addr, size_t n, int prot, int flags, int fd,
                         off_t off, uint32_t loc) {
  void *p = mmap(addr, n, prot, flags, fd, off);
  if (p != MAP_FAILED)
    recordBlock(RP_ALLOC, p, n, loc);
  return p;
}

int __racepredict_munmap(void *addr, size_t n, uint32_t loc) {
  recordBlock(RP_FREE, addr, n, loc);
  return munmap(addr, n);
}

} // extern "C"
