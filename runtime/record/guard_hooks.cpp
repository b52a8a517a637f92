//===- record/guard_hooks.cpp - C++ local statics (__cxa_guard_*) ---------===//
//
// `static Config c;` in a function: clang guards the initialiser (Itanium
// C++ ABI §3.3.2) with an acquire load of the guard's first byte; while it
// is 0, __cxa_guard_acquire(g) either returns 1 (this thread initialises c,
// then calls __cxa_guard_release, which sets the byte to 1 and wakes the
// waiters) or blocks until that release and returns 0. libstdc++ writes the
// byte where no event sees it, so the reader took the 1 for a hidden write
// (a new location) and the object looked unordered with its users: a false
// race on `c` between the initialiser and every other thread.
//
// The release is recorded as what it is to the program, an atomic write of 1
// to the guard byte. This hook performs that write itself, with the token,
// before the real release: the initialiser has finished, so a thread that
// sees the byte early uses a complete object, and a thread inside
// __cxa_guard_acquire still waits for the real release (libstdc++ compares
// the whole guard word, whose pending bit is still set). No thread can
// therefore observe the 1 before its write is recorded. An acquire is
// recorded as the atomic read of the byte it implies once it returns: 1
// when it waited for another thread's initialisation (so the branch on its
// result depends on that write: the users of c come after the
// initialiser, as after any flag handshake), 0 when this thread
// initialises. An abort (the initialiser threw) leaves the byte 0: nothing
// to record.
//
#include "real.h"
#include "state.h"

#include "racepredict/abi/runtime.h"

using namespace racepredict::rt;

extern "C" {

int __racepredict___cxa_guard_acquire(uint64_t *g, uint32_t loc) {
  int r = real___cxa_guard_acquire()(g);
  __racepredict_atomic_load1(g, loc);
  return r;
}

void __racepredict___cxa_guard_release(uint64_t *g, uint32_t loc) {
  __racepredict_atomic_store1(g, 1, loc);
  real___cxa_guard_release()(g);
}

void __racepredict___cxa_guard_abort(uint64_t *g, uint32_t) {
  real___cxa_guard_abort()(g);
}

} // extern "C"
