// The twin of cxx_thread_local_race.cpp: main sets the buffer size before
// it starts the workers, and the thread_local destructor adds to the total
// under a mutex.
#include "testonly.h"
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

static size_t bufferSize = 64;
static long totalBytes; // guarded by totalMu
static std::mutex totalMu, printMu;

struct Scratch {
  std::string data;
  long bytes = 0;
  Scratch() { data.reserve(bufferSize); }
  ~Scratch() {
    std::lock_guard<std::mutex> g(totalMu);
    totalBytes += bytes;
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
  bufferSize = 256;
  std::thread a(work, 1);
  std::thread b(work, 2);
  a.join();
  b.join();
  std::lock_guard<std::mutex> g(totalMu);
  std::printf("%ld bytes\n", totalBytes);
}
