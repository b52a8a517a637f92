//===- record/deadline.h - A timed call returning after its deadline -----===//
//
// A timed wait, lock or semaphore wait records whether its deadline had
// passed when it returned (RP_PAST_DEADLINE, format.h v6): callers read the
// clock after such a call instead of trusting its result (libstdc++'s
// condition_variable::wait_until decides cv_status::timeout by now() >=
// deadline, not by ETIMEDOUT), so a wait notified just after its deadline
// took the time-out path. Replay returns from such a step only once the
// deadline has passed there too, so every clock read after it agrees
// (docs/replay.md, "Timed calls").
//
#pragma once

#include "racepredict/trace/format.h"

#include <stdint.h>
#include <time.h>

namespace racepredict::rt {

/// The absolute deadline of a timed call on its clock.
struct Deadline {
  clockid_t clk;
  const struct timespec *at;
};

/// Nanoseconds from now to the deadline; <= 0 once it has passed.
inline int64_t nsUntil(const Deadline &d) {
  struct timespec now;
  clock_gettime(d.clk, &now);
  return (static_cast<int64_t>(d.at->tv_sec) - now.tv_sec) * 1000000000ll +
         (d.at->tv_nsec - now.tv_nsec);
}

/// The record code bit for a call with deadline `d` (none: null) that
/// returns now: one clock read.
inline unsigned pastDeadline(const Deadline *d) {
  return d && d->at && nsUntil(*d) <= 0 ? RP_PAST_DEADLINE : 0;
}

} // namespace racepredict::rt
