// The twin of cxx_shared_ptr_race.cpp: the shared configuration's field is
// guarded by its own mutex.
#include <iostream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

struct Config {
  std::string name;
  std::mutex mu;
  int timeoutMs; // guarded by mu
};

static std::mutex logMu;
static void log(const std::string &what) {
  std::lock_guard<std::mutex> g(logMu);
  std::cout << what << std::endl;
}

int main() {
  auto cfg = std::make_shared<Config>();
  cfg->name = "default";
  cfg->timeoutMs = 100;
  std::thread reloader([cfg] {
    std::unique_lock<std::mutex> l(cfg->mu);
    cfg->timeoutMs = 250;
    l.unlock();
    log("reloaded " + cfg->name);
  });
  std::thread request([cfg] {
    std::unique_lock<std::mutex> l(cfg->mu);
    int t = cfg->timeoutMs;
    l.unlock();
    log("request with timeout " + std::to_string(t));
  });
  reloader.join();
  request.join();
  std::cout << "uses " << cfg.use_count() << std::endl;
}
