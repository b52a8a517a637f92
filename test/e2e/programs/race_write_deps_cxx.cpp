// Issue 20 in the C++ shape of the TSan unit test it was reduced from:
// std::mutex and std::condition_variable (through libstdc++'s pthread
// calls), a lambda per thread. T1's `++glob` and T3's `glob = 1` race: in
// the reordering where T2 takes mu first, T2's increment reads 0 and writes
// 1, nothing branches on either value, and `ready = true` (a constant)
// still releases T3. Not predictable under write_deps=all (RVPredict's
// rule), where `ready = true` depends on T2's read of glob.
#include "testonly.h"
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>
// expect-race: A B
// expect-location: glob
// expect-none-with: write_deps=all

int glob;
static bool ready;
static std::mutex mu, qm;
static std::condition_variable qc;

int main() {
  testonly_init();
  std::thread t3([] {
    std::unique_lock<std::mutex> l(qm);
    qc.wait(l, [] { return ready; });
    l.unlock();
    glob = 1; // @B
  });
  std::thread t1([] {
    {
      std::lock_guard<std::mutex> g(mu);
      ++glob; // @A
    }
    testonly_signal();
  });
  std::thread t2([] {
    testonly_wait();
    {
      std::lock_guard<std::mutex> g(mu);
      ++glob;
    }
    std::lock_guard<std::mutex> g(qm);
    ready = true;
    qc.notify_one();
  });
  t1.join();
  t2.join();
  t3.join();
  std::printf("glob=%d\n", glob);
}
