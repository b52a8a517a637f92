// A result published through a readiness flag that only uninstrumented
// code touches (as a lock-free handoff inside a precompiled library would):
// neither the recorder nor the replay sees that order, so the race between
// the result's write and its read is predicted, and the replay, which runs
// the reader first, can never get past the flag. It must say so —
// `diverged`, with the thread, the step, and the program line it did not
// reach — never confirm, and the run must exit 4, not 0.
#include "testonly.h"
#include <iostream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
// expect-race: A B
// expect-replay: diverged

static std::map<std::string, int> &limits() {
  static std::map<std::string, int> table = {{"jobs", 4}};
  return table;
}

struct Result {
  std::string name;
  int value = 0;
};
static Result result;
static std::mutex printMu;

int main() {
  testonly_init();
  std::thread producer([] {
    result.name = "jobs";
    result.value = limits()["jobs"] * 2; // @A
    testonly_flag_set();
  });
  std::thread consumer([] {
    testonly_flag_wait();
    std::lock_guard<std::mutex> g(printMu);
    std::cout << result.name << " = " << result.value << std::endl; // @B
  });
  producer.join();
  consumer.join();
}
