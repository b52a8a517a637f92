// std::thread, std::mutex, std::condition_variable and std::atomic, used
// correctly: nothing to report.
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

static int data;
static bool ready;
static std::mutex m;
static std::condition_variable cv;
static std::atomic<int> counter{0};

int main() {
  std::thread consumer([] {
    std::unique_lock<std::mutex> l(m);
    cv.wait(l, [] { return ready; });
    std::printf("data=%d\n", data);
  });
  std::vector<std::thread> workers;
  for (int i = 0; i < 3; ++i)
    workers.emplace_back([] { counter.fetch_add(1); });
  data = 42;
  {
    std::lock_guard<std::mutex> g(m);
    ready = true;
  }
  cv.notify_one();
  consumer.join();
  for (auto &w : workers)
    w.join();
  std::printf("counter=%d\n", counter.load());
}
