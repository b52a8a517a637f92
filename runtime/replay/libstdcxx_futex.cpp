//===- replay/libstdcxx_futex.cpp - libstdc++'s futex waits under replay --===//
//
// std::future::get and wait (and std::async's results, shared_future,
// packaged_task) wait in libstdc++'s __atomic_futex_unsigned: the header,
// instrumented, sets the waiter bit (a recorded fetch_or), calls
// libstdc++.so to sleep in a futex (not recorded), then reloads the status
// (a recorded load). The setter stores the status with a recorded exchange
// and only then branches on the old waiter bit (a recorded branch) before
// it wakes the futex. A witness may put the waiter's reload before that
// branch: the reload reads the stored status, which is all the model needs
// (cxx_promise_race: the setter's write after set_value races with main's
// read after wait()). Under replay the setter then waited at its branch for
// its turn while the waiter slept until a wake that comes only after it:
// the replay diverged.
//
// So, replaying, a wait returns once the word no longer holds the value it
// was called with -- as the wake after that store would make it --, looking
// every millisecond (the store wakes nobody), or false once its deadline
// has passed, as libstdc++'s own returns; a futex wait may return early
// (EAGAIN, EINTR) and the header reloads and loops, so this is one of the
// runs libstdc++'s allows. The executable's calls bind to these definitions
// (the static runtime defines them; libstdc++'s are in the shared library).
// Recording, libstdc++'s own run. They are weak: a program linked with
// -static-libstdc++ gets libstdc++'s own (two definitions failed to link),
// and its replays wait as libstdc++ does.
//
#include "replay.h"

#include "../record/real.h"

#include <bits/atomic_futex.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

namespace {

using WaitFn = bool (*)(std::__atomic_futex_unsigned_base *, unsigned *,
                        unsigned, bool, std::chrono::seconds,
                        std::chrono::nanoseconds);

/// libstdc++'s definition of the wait `name` (resolved on first use: no
/// guard variable in a hook).
WaitFn realWait(WaitFn *cache, const char *name, const char *version) {
  WaitFn f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
  if (!f) {
    f = reinterpret_cast<WaitFn>(racepredict::rt::resolveReal(name, version));
    __atomic_store_n(cache, f, __ATOMIC_RELEASE);
  }
  return f;
}

/// Waits while *addr holds val; false once the absolute deadline (s, ns) on
/// `clock` has passed first. libstdc++ waits on the futex as a shared one
/// (FUTEX_WAIT, not _PRIVATE), so its notify_all still wakes this wait.
bool waitWhileUnchanged(unsigned *addr, unsigned val, bool has_timeout,
                        clockid_t clock, std::chrono::seconds s,
                        std::chrono::nanoseconds ns) {
  constexpr long kLook = 1000000; // 1 ms
  while (__atomic_load_n(addr, __ATOMIC_ACQUIRE) == val) {
    long wait = kLook;
    if (has_timeout) {
      struct timespec now;
      clock_gettime(clock, &now);
      long long left =
          (s.count() - now.tv_sec) * 1000000000ll + (ns.count() - now.tv_nsec);
      if (left <= 0)
        return false;
      if (left < wait)
        wait = static_cast<long>(left);
    }
    struct timespec rel = {0, wait};
    syscall(SYS_futex, addr, FUTEX_WAIT, val, &rel, nullptr, 0);
  }
  return true;
}

WaitFn gRealWait, gRealWaitSteady;

} // namespace

// __s and __ns are measured against CLOCK_REALTIME (libstdc++'s contract).
__attribute__((weak)) bool
std::__atomic_futex_unsigned_base::_M_futex_wait_until(
    unsigned *addr, unsigned val, bool has_timeout, std::chrono::seconds s,
    std::chrono::nanoseconds ns) {
  if (racepredict::rt::gReplayOn)
    return waitWhileUnchanged(addr, val, has_timeout, CLOCK_REALTIME, s, ns);
  return realWait(&gRealWait,
                  "_ZNSt28__atomic_futex_unsigned_base19_M_futex_wait_"
                  "untilEPjjbNSt6chrono8durationIlSt5ratioILl1ELl1EEEENS2_"
                  "IlS3_ILl1ELl1000000000EEEE",
                  "GLIBCXX_3.4.21")(this, addr, val, has_timeout, s, ns);
}

// And against CLOCK_MONOTONIC (future::wait_for, wait_until on steady_clock).
__attribute__((weak)) bool
std::__atomic_futex_unsigned_base::_M_futex_wait_until_steady(
    unsigned *addr, unsigned val, bool has_timeout, std::chrono::seconds s,
    std::chrono::nanoseconds ns) {
  if (racepredict::rt::gReplayOn)
    return waitWhileUnchanged(addr, val, has_timeout, CLOCK_MONOTONIC, s, ns);
  return realWait(&gRealWaitSteady,
                  "_ZNSt28__atomic_futex_unsigned_base26_M_futex_wait_until_"
                  "steadyEPjjbNSt6chrono8durationIlSt5ratioILl1ELl1EEEENS2_"
                  "IlS3_ILl1ELl1000000000EEEE",
                  "GLIBCXX_3.4.29")(this, addr, val, has_timeout, s, ns);
}
