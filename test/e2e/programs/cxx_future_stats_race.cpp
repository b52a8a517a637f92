// A loader thread hands its parsed config to main through std::promise /
// std::future; main polls with wait_for (a progress line while it loads),
// reads the loader's statistics, joins the loader and takes the result.
// Everything the loader writes before set_value is ordered before the wait
// returns ready (the shared state's release and acquire: libstdc++'s futex
// word); the parse time it stores after set_value is not. The wait sleeps
// in a futex inside libstdc++.so that the witness must let return when the
// value is set, before the loader's branch that wakes it.
#include <chrono>
#include <cstdio>
#include <future>
#include <map>
#include <string>
#include <thread>
// expect-race: A B

struct LoadStats {
  int keys = 0;
  long micros = 0;
};
static LoadStats stats;

static void loader(std::promise<std::map<std::string, int>> done) {
  std::map<std::string, int> config;
  const char *keys[] = {"threads", "level", "block"};
  for (int i = 0; i < 3; ++i)
    config[keys[i]] = i + 1;
  stats.keys = static_cast<int>(config.size());
  done.set_value(std::move(config));
  stats.micros = 1234; // @A
}

int main() {
  std::promise<std::map<std::string, int>> p;
  std::future<std::map<std::string, int>> f = p.get_future();
  std::thread t(loader, std::move(p));
  while (f.wait_for(std::chrono::seconds(5)) != std::future_status::ready)
    std::puts("loading...");
  std::printf("%d keys in %ld us\n", stats.keys, stats.micros); // @B
  t.join();
  std::map<std::string, int> config = f.get();
  std::printf("level %d\n", config["level"]);
}
