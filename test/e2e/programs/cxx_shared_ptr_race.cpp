// A configuration shared by std::shared_ptr between a reloader thread and
// a request thread (the copies count references with atomics): the
// reloader changes a field in place instead of publishing a new object.
#include <iostream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
// expect-race: A B

struct Config {
  std::string name;
  int timeoutMs;
};

static std::mutex logMu;
static void log(const std::string &what) {
  std::lock_guard<std::mutex> g(logMu);
  std::cout << what << std::endl;
}

int main() {
  auto cfg = std::make_shared<Config>(Config{"default", 100});
  std::thread reloader([cfg] {
    cfg->timeoutMs = 250; // @A
    log("reloaded " + cfg->name);
  });
  std::thread request([cfg] {
    int t = cfg->timeoutMs; // @B
    log("request with timeout " + std::to_string(t));
  });
  reloader.join();
  request.join();
  std::cout << "uses " << cfg.use_count() << std::endl;
}
