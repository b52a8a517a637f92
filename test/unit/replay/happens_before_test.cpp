//===- happens_before_test.cpp - The replay runtime's vector clocks -------===//
//
// The clocks decide whether a replayed race is confirmed: an access pair is
// unordered iff the second thread has not seen the first access's epoch.
//
#include "replay_test_util.h"

#include "../../../runtime/replay/happens_before.h"
#include "racepredict/trace/format.h"

using namespace racepredict;
using racepredict::testing::testAlloc;

namespace {

constexpr uint64_t kLockM = 0x1000, kLockN = 0x2000, kCond = 0x3000,
                   kAtomic = 0x4000, kBarrier = 0x5000;

struct Clocks {
  rt::VectorClocks vc{};
  explicit Clocks(uint32_t threads, uint32_t objects = 64) {
    EXPECT_TRUE(vc.init(threads, objects, testAlloc));
  }
  void ev(uint32_t t, unsigned kind, uint64_t obj = 0, uint64_t aux = 0,
          uint32_t child = rt::kNoThread) {
    uint64_t ops[2] = {obj, aux};
    rt::applyEvent(vc, t, kind, ops, 2, obj, child);
  }
  /// Is an access of `a` at epoch `e` ordered before thread b's now?
  bool seen(uint32_t b, uint32_t a, uint32_t e) const {
    return vc.clock(b, a) >= e;
  }
};

TEST(ReplayClocks, LockHandOffOrders) {
  Clocks c(2);
  uint32_t e = c.vc.epoch(0); // t0 writes x here
  c.ev(0, RP_ACQUIRE, kLockM);
  c.ev(0, RP_RELEASE, kLockM);
  EXPECT_FALSE(c.seen(1, 0, e));
  c.ev(1, RP_ACQUIRE, kLockM);
  EXPECT_TRUE(c.seen(1, 0, e));
}

TEST(ReplayClocks, UnrelatedLockDoesNotOrder) {
  // Carril's Fig. 1.5: the write happens after t0's critical section.
  Clocks c(2);
  c.ev(0, RP_ACQUIRE, kLockM);
  c.ev(0, RP_RELEASE, kLockM);
  uint32_t e = c.vc.epoch(0);
  c.ev(1, RP_ACQUIRE, kLockM);
  c.ev(1, RP_RELEASE, kLockM);
  EXPECT_FALSE(c.seen(1, 0, e));
  c.ev(1, RP_ACQUIRE, kLockN); // a lock t0 never released
  EXPECT_FALSE(c.seen(1, 0, e));
}

TEST(ReplayClocks, ForkAndJoin) {
  Clocks c(2);
  uint32_t before = c.vc.epoch(0);
  c.ev(0, RP_FORK, 7, 0, 1);
  uint32_t after = c.vc.epoch(0);
  EXPECT_TRUE(c.seen(1, 0, before));
  EXPECT_FALSE(c.seen(1, 0, after));
  uint32_t childWork = c.vc.epoch(1);
  EXPECT_FALSE(c.seen(0, 1, childWork));
  c.ev(0, RP_JOIN, 7, 0, 1);
  EXPECT_TRUE(c.seen(0, 1, childWork));
}

TEST(ReplayClocks, SignalToWaitReturn) {
  Clocks c(2);
  rt::applyHalf(c.vc, 1, RP_WAIT, kLockM); // t1's wait releases m
  uint32_t e = c.vc.epoch(0);
  c.ev(0, RP_ACQUIRE, kLockM);
  c.ev(0, RP_SIGNAL, kCond);
  c.ev(0, RP_RELEASE, kLockM);
  EXPECT_FALSE(c.seen(1, 0, e));
  c.ev(1, RP_WAIT, kCond, kLockM);
  EXPECT_TRUE(c.seen(1, 0, e));
}

TEST(ReplayClocks, BarrierArrivalsBeforeDepartures) {
  Clocks c(2);
  uint32_t e0 = c.vc.epoch(0), e1 = c.vc.epoch(1);
  rt::applyHalf(c.vc, 0, RP_BARRIER, kBarrier);
  rt::applyHalf(c.vc, 1, RP_BARRIER, kBarrier);
  c.ev(0, RP_BARRIER, kBarrier);
  c.ev(1, RP_BARRIER, kBarrier);
  EXPECT_TRUE(c.seen(0, 1, e1));
  EXPECT_TRUE(c.seen(1, 0, e0));
}

TEST(ReplayClocks, SemaphoreAndAtomics) {
  Clocks c(3);
  uint32_t e = c.vc.epoch(0);
  c.ev(0, RP_SEMPOST, 0x99);
  c.ev(1, RP_SEMWAIT, 0x99);
  EXPECT_TRUE(c.seen(1, 0, e));
  uint32_t f = c.vc.epoch(1);
  c.ev(1, RP_ATOMIC_WRITE, kAtomic);
  EXPECT_FALSE(c.seen(2, 1, f));
  c.ev(2, RP_ATOMIC_READ, kAtomic);
  EXPECT_TRUE(c.seen(2, 1, f));
  // Plain accesses, branches and failed trylocks order nothing.
  uint32_t g = c.vc.epoch(2);
  c.ev(2, RP_WRITE, kAtomic);
  c.ev(2, RP_TRYFAIL, kLockM);
  c.ev(2, RP_BRANCH);
  c.ev(0, RP_READ, kAtomic);
  EXPECT_FALSE(c.seen(0, 2, g));
}

TEST(ReplayClocks, FullTableRefusesToConfirm) {
  Clocks c(1, 8); // 8 slots, a quarter kept free: 6 objects
  for (uint64_t k = 1; k <= 6; ++k)
    c.ev(0, RP_RELEASE, k * 64);
  EXPECT_FALSE(c.vc.overflowed());
  c.ev(0, RP_RELEASE, 7 * 64);
  EXPECT_TRUE(c.vc.overflowed());
}

} // namespace
