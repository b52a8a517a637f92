//===- record/stack_hooks.cpp - Shadow call stacks for reports ------------===//
//
// TSan's approach to stacks without unwinding: instrumented functions push
// and pop a per-thread shadow stack. Each frame is the *call site* in the
// caller (stored by the caller into __racepredict_callsite right before the
// call), so a report can show `#1 helper a.c:20` for the frame that called
// the racing access's function. The trace gets the stack only when it
// changed since the thread's previous event (a stack record, format.h), so
// functions that record nothing cost nothing in the trace.
//
#include "state.h"

#include "racepredict/abi/runtime.h"

using namespace racepredict::rt;

extern "C" {

RP_TLS uint32_t __racepredict_callsite;

void __racepredict_func_enter(void) {
  uint32_t site = __racepredict_callsite;
  // A callee reached from uninstrumented code (a callback) must not reuse
  // the site of an older call: the slot is consumed here.
  __racepredict_callsite = 0;
  ThreadState *ts = tlsState;
  if (RP_UNLIKELY(!ts))
    return; // before the runtime attached this thread (early constructors)
  if (RP_LIKELY(ts->depth < kMaxFrames))
    ts->frames[ts->depth] = site;
  ++ts->depth;
}

void __racepredict_func_exit(void) {
  // A site stored for a call into uninstrumented code was not consumed by a
  // func_enter; it must not outlive its caller: main, entered from libc
  // after the global constructors, took the last constructor's call site as
  // its own (a "Registrar" frame below main in every stack), and a lock
  // reached from uninstrumented code would be attributed to it
  // (interpose.c).
  __racepredict_callsite = 0;
  ThreadState *ts = tlsState;
  if (RP_UNLIKELY(!ts || ts->depth == 0))
    return; // entered before the thread was attached
  --ts->depth;
  if (ts->synced > ts->depth)
    ts->synced = ts->depth;
}

} // extern "C"
