//===- replay/timed_steps.cpp - Timed calls return after their deadline ---===//
//
// A step whose trace event returned after its deadline (RP_PAST_DEADLINE,
// record/deadline.h) returns under replay only once the deadline has passed
// here too: the program reads the clock after it (libstdc++'s wait_for and
// wait_until decide cv_status::timeout by now() >= deadline), and an early
// return would send it round its loop again, off the scheduled path
// (docs/replay.md, "Timed calls"). The thread holds the turn meanwhile, so
// no scheduled thread can overtake the step; the wait is as long as the
// remainder of the call's own time-out.
//
#include "replay_state.h"

#include "../record/deadline.h"
#include "../record/state.h"

namespace racepredict::rt {

void sleepUntilPassed(const Deadline &d) {
  uint32_t never = 0;
  for (int64_t ns; (ns = nsUntil(d)) > 0;)
    futexWait(&never, 0,
              ns < 100000000ll ? static_cast<uint64_t>(ns) : 100000000ull);
}

bool headPastDeadline() {
  uint32_t h = __atomic_load_n(&gR.head, __ATOMIC_ACQUIRE);
  return h < gR.sched.numSteps &&
         (gR.sched.steps[h].flags & kStepPastDeadline) != 0;
}

void replayAwaitDeadline(const Deadline *d) {
  ThreadState *ts = tlsState;
  if (d && d->at && ts && isMyTurn(ts) && headPastDeadline())
    sleepUntilPassed(*d);
}

} // namespace racepredict::rt
