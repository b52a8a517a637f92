// A request handler reads its configuration through a function-local
// static (C++11 thread-safe initialisation): the first worker builds it
// while the second one calls the same function and waits in
// __cxa_guard_acquire for the constructor to finish. Reading the
// configuration is race-free; the request counter, updated without a
// lock, races.
#include "testonly.h"
#include <cstdio>
#include <pthread.h>
#include <string>
#include <unistd.h>
// expect-race: C C

struct Config {
  std::string name;
  int maxConnections;
  int timeoutMs;
  Config() : name("frontend") {
    maxConnections = 64;
    timeoutMs = 250;
    // Let the second worker reach settings() while this one is still
    // inside the constructor (it then blocks on the guard; on a loaded
    // machine it may come later and find the object built: no race either).
    testonly_signal();
    usleep(100 * 1000);
  }
};

static const Config &settings() {
  static Config config;
  return config;
}

static long served;

static void *worker(void *second) {
  if (second)
    testonly_wait();
  const Config &c = settings();
  int budget = c.maxConnections * c.timeoutMs;
  served += budget > 0 && !c.name.empty(); // @C
  return nullptr;
}

int main() {
  testonly_init();
  pthread_t a, b;
  pthread_create(&a, nullptr, worker, nullptr);
  pthread_create(&b, nullptr, worker, &b);
  pthread_join(a, nullptr);
  pthread_join(b, nullptr);
  std::printf("served %ld\n", served);
}
