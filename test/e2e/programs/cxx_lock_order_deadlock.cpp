// A shop's stock in two bins, each with a mutex. Movers rebalance between
// the bins under std::scoped_lock (safe in any argument order: one mutex
// locked, the other only tried). But the auditor locks the shelf, then the
// backroom with plain lock(), and the restocker the backroom, then the
// shelf: that inversion deadlocks in another schedule, the scoped locks
// never do. In the recorded run the restocker starts only after the
// auditor is done (an order the recorder cannot see).
#include "testonly.h"
#include <cstdio>
#include <mutex>
#include <thread>
// expect-deadlock: t1@AUD t2@RES t0@J
// expect-kind: lock-order
// cflags: -std=c++17

struct Bin {
  std::mutex mu;
  long items = 50;
};

static Bin shelf, backroom;
static long audited;

static void move(Bin &from, Bin &to, long n) {
  std::scoped_lock both(from.mu, to.mu);
  from.items -= n;
  to.items += n;
}

static void audit() {
  shelf.mu.lock();
  backroom.mu.lock(); // @AUD
  audited = shelf.items + backroom.items;
  backroom.mu.unlock();
  shelf.mu.unlock();
}

static void restock() {
  backroom.mu.lock();
  shelf.mu.lock(); // @RES
  backroom.items -= 10;
  shelf.items += 10;
  shelf.mu.unlock();
  backroom.mu.unlock();
}

int main() {
  testonly_init();
  std::thread t1([] {
    move(shelf, backroom, 5);
    audit();
    testonly_signal();
  });
  std::thread t2([] {
    testonly_wait();
    move(backroom, shelf, 3);
    restock();
  });
  t1.join(); // @J
  t2.join();
  std::printf("shelf=%ld backroom=%ld audited=%ld\n", shelf.items,
              backroom.items, audited);
}
