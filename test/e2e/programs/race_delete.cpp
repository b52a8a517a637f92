// A connection object deleted by the thread that closes it while a worker
// may still count a request on it: `delete` ends the object (libstdc++'s
// operator delete calls free, which the runtime records at the delete's
// call site) and races with the worker's update.
#include "testonly.h"
#include <cstdio>
#include <pthread.h>
// expect-race: D R
// expect-stack: D closer
// expect-stack: R Connection::served worker

struct Connection {
  int fd = 3;
  long requests = 0;
  __attribute__((noinline)) void served() {
    ++requests; // @R
  }
};

static void *worker(void *arg) {
  static_cast<Connection *>(arg)->served();
  testonly_signal();
  return nullptr;
}

static void *closer(void *arg) {
  testonly_wait();
  delete static_cast<Connection *>(arg); // @D
  return nullptr;
}

int main() {
  testonly_init();
  auto *c = new Connection;
  pthread_t w, k;
  pthread_create(&w, nullptr, worker, c);
  pthread_create(&k, nullptr, closer, c);
  pthread_join(w, nullptr);
  pthread_join(k, nullptr);
  std::puts("closed");
}
