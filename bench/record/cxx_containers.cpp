// Recording benchmark: C++ with STL containers, virtual calls, std::thread
// and std::mutex. Workers insert into a shared std::map and push into
// per-thread std::vectors through a virtual interface.
// Usage: cxx_containers THREADS OPS
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

struct Sink {
  virtual ~Sink() = default;
  virtual void put(long v) = 0;
};
struct VectorSink : Sink {
  std::vector<long> items;
  void put(long v) override { items.push_back(v); }
};

static std::map<long, long> shared;
static std::mutex m;

static void work(int id, long ops, Sink &sink) {
  for (long i = 0; i < ops; ++i) {
    sink.put(i * id);
    if (i % 8 == 0) {
      std::lock_guard<std::mutex> g(m);
      shared[(i * 31 + id) % 4096] += i;
    }
  }
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  long ops = argc > 2 ? std::atol(argv[2]) : 100000;
  std::vector<std::unique_ptr<VectorSink>> sinks;
  std::vector<std::thread> ts;
  for (int i = 0; i < threads; ++i)
    sinks.push_back(std::make_unique<VectorSink>());
  for (int i = 0; i < threads; ++i)
    ts.emplace_back(work, i + 1, ops, std::ref(*sinks[i]));
  for (auto &t : ts)
    t.join();
  std::printf("keys=%zu\n", shared.size());
  return 0;
}
