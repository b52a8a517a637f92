// A countdown latch built on a mutex and a condition variable (the shape
// of pre-C++20 code): workers fill their slot of the results and count
// down; main waits for zero and sums the slots, which is ordered. A worker
// also bumps a `stragglers` count after counting down, outside the lock,
// which main reads after the wait: a race.
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>
// expect-race: A B

class Latch {
public:
  explicit Latch(int n) : count_(n) {}
  void count_down() {
    std::lock_guard<std::mutex> g(mu_);
    if (--count_ == 0)
      cv_.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> lk(mu_);
    cv_.wait(lk, [this] { return count_ == 0; });
  }

private:
  std::mutex mu_;
  std::condition_variable cv_;
  int count_;
};

static int stragglers = 0;

int main() {
  const int n = 3;
  Latch latch(n);
  std::vector<long> results(n);
  std::vector<std::thread> ts;
  for (int i = 0; i < n; ++i)
    ts.emplace_back([&, i] {
      results[i] = (i + 1) * 10;
      latch.count_down();
      if (i == n - 1)
        ++stragglers; // @A
    });
  latch.wait();
  long sum = 0;
  for (long r : results)
    sum += r;
  std::printf("sum=%ld stragglers=%d\n", sum, stragglers); // @B
  for (auto &t : ts)
    t.join();
}
