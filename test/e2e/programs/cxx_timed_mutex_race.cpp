// A cache refresher that gives up when the cache stays busy: it takes the
// std::timed_mutex with try_lock_for (pthread_mutex_clocklock in
// libstdc++), while readers hold it with lock_guard. A refresh also stamps
// `refreshed_at` after unlocking, which a reader prints without the lock.
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>
// expect-race: A B

static std::timed_mutex mu;
static int cache[4];
static long refreshed_at = 0;

static void refresher() {
  for (int round = 1; round <= 3; ++round) {
    if (mu.try_lock_for(std::chrono::milliseconds(50))) {
      for (int &c : cache)
        c = round;
      mu.unlock();
      refreshed_at = round; // @A
    }
  }
}

int main() {
  std::thread r(refresher);
  long seen = 0;
  for (int i = 0; i < 3; ++i) {
    {
      std::lock_guard<std::timed_mutex> g(mu);
      seen += cache[i];
    }
    std::printf("refreshed at %ld\n", refreshed_at); // @B
  }
  r.join();
  std::printf("seen %ld\n", seen);
}
