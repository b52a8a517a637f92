// A unit test in the shape C++ race-detector tests have (written for this
// project): a registry filled by a global constructor, a counter in a
// namespace that every worker increments, a templated queue whose size is
// read without its lock, and a heap block of counters. Four workers hit the
// same racy lines: each race is one finding (one pair of source lines),
// named test01::GLOB, Queue<int>::push(int) and by the heap block's
// allocation. In the recorded run the workers run one after the other and
// main reads the size only after all of them (orders the recorder cannot
// see).
#include "testonly.h"
#include <cstdio>
#include <map>
#include <mutex>
#include <pthread.h>
#include <string>
#include <vector>
// expect-race: G G
// expect-race: H H
// expect-race: P S
// expect-stack: P Queue::push worker

namespace test01 {
int GLOB;
} // namespace test01

template <typename T> class Queue {
public:
  void push(T v) {
    std::lock_guard<std::mutex> g(m_);
    items_.push_back(v);
    size_ = items_.size(); // @P
  }
  size_t size() const { return size_; } // @S

private:
  std::mutex m_;
  std::vector<T> items_;
  size_t size_ = 0;
};

struct Counters {
  long hits[4];
  long total;
};

static std::map<std::string, int> registry = {{"alpha", 1}, {"beta", 2}};
static Queue<int> queue;
static Counters *counters;

static void *worker(void *arg) {
  long id = reinterpret_cast<long>(arg);
  test01::GLOB++;        // @G
  counters->total += id; // @H
  queue.push(registry.at("alpha") + int(id));
  testonly_signal();
  return nullptr;
}

int main() {
  testonly_init();
  counters = new Counters();
  pthread_t t[4];
  for (long i = 0; i < 4; ++i) {
    pthread_create(&t[i], nullptr, worker, reinterpret_cast<void *>(i));
    testonly_wait();
  }
  size_t n = queue.size();
  for (pthread_t &x : t)
    pthread_join(x, nullptr);
  std::printf("%d %ld %zu\n", test01::GLOB, counters->total, n);
  delete counters;
}
