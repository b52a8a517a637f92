// A configuration published to two workers as std::shared_ptr copies: each
// reads it, notes itself as the last user in a field nobody guards, and
// drops its copy; the last one destroys the configuration. The last-user field
// races; the release does not (its 8-byte load of both reference counts reads
// what the 4-byte atomic decrements of the other copies wrote). The workers
// start together once both exist (a start gate): a first worker that ran to
// its end before main made the second one's copy left the second one's
// write ordered after its own through the reference count, no race at all.
#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>
// expect-race: U U

struct Config {
  std::string name;
  int level = 0;
  long blockSize = 0;
  int lastUser = -1;
  ~Config() {
    level = -1;
    blockSize = 0;
  }
};

static long work(std::shared_ptr<Config> cfg, int id) {
  long sum = cfg->blockSize * cfg->level + id + (long)cfg->name.size();
  cfg->lastUser = id; // @U
  return sum;
}

int main() {
  auto cfg = std::make_shared<Config>();
  cfg->name = "fast";
  cfg->level = 6;
  cfg->blockSize = 128;
  long results[2] = {0, 0};
  std::atomic<bool> go{false};
  std::vector<std::thread> workers;
  for (int id = 0; id < 2; ++id)
    workers.emplace_back([c = cfg, id, &results, &go]() mutable {
      while (!go.load())
        std::this_thread::yield();
      results[id] = work(std::move(c), id);
    });
  cfg.reset();
  go.store(true);
  for (auto &w : workers)
    w.join();
  std::printf("%ld %ld\n", results[0], results[1]);
}
