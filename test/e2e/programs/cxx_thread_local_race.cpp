// Per-thread scratch state (a thread_local object with a constructor and a
// destructor): the constructor sizes the buffer from a global setting that
// main changes while the workers run, and the destructor adds the thread's
// byte count to a global total at thread exit, without a lock.
#include "testonly.h"
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
// expect-race: A B
// expect-race: C C

static size_t bufferSize = 64;
static long totalBytes; // flushed by each thread at its exit
static std::mutex printMu;

struct Scratch {
  std::string data;
  long bytes = 0;
  Scratch() {
    data.reserve(bufferSize); // @A
  }
  ~Scratch() {
    totalBytes += bytes; // @C
  }
};
static thread_local Scratch scratch;

static void work(int id) {
  scratch.data = "worker " + std::to_string(id);
  scratch.bytes += static_cast<long>(scratch.data.size());
  // Neither worker exits before both have their buffer (a hidden order):
  // the second would otherwise reuse the first one's freed heap block.
  testonly_give(id - 1);
  testonly_take(2 - id);
  {
    std::lock_guard<std::mutex> g(printMu);
    std::printf("%s\n", scratch.data.c_str());
  }
}

int main() {
  testonly_init();
  std::thread a(work, 1);
  bufferSize = 256; // @B
  std::thread b(work, 2);
  a.join();
  b.join();
  std::printf("%ld bytes\n", totalBytes);
}
