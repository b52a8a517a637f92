// The twin of cxx_shared_config_race.cpp without the last-user field: the
// workers only read the configuration and drop their copies; the last one
// destroys it (~Config writes the fields the others read). The only order
// between them is the reference count: 4-byte atomic decrements, and the
// 8-byte atomic load of both counts in libstdc++'s release.
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

struct Config {
  std::string name;
  int level = 0;
  long blockSize = 0;
  ~Config() {
    level = -1;
    blockSize = 0;
  }
};

static long work(std::shared_ptr<const Config> cfg, int id) {
  long sum = 0;
  for (int i = 0; i < 3; ++i)
    sum += cfg->blockSize * cfg->level + id + (long)cfg->name.size();
  return sum;
}

int main() {
  auto cfg = std::make_shared<Config>();
  cfg->name = "fast";
  cfg->level = 6;
  cfg->blockSize = 128;
  long results[2] = {0, 0};
  std::vector<std::thread> workers;
  for (int id = 0; id < 2; ++id)
    workers.emplace_back(
        [c = std::shared_ptr<const Config>(cfg), id, &results]() mutable {
          results[id] = work(std::move(c), id);
        });
  cfg.reset();
  for (auto &w : workers)
    w.join();
  std::printf("%ld %ld\n", results[0], results[1]);
}
