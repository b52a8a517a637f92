// A global logger whose destructor flushes what is left of its buffer at
// exit, while a detached std::thread may still be appending to it: the
// flush in the destructor (after main returns) races with the append.
#include "testonly.h"
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
// expect-race: A B

class Logger {
public:
  ~Logger() {
    if (pending_) // @B
      std::fputs(buffer_.c_str(), stderr);
  }
  void append(const std::string &line) {
    std::lock_guard<std::mutex> g(mu_);
    buffer_ += line;
    buffer_ += '\n';
    pending_ = true; // @A
  }

private:
  std::mutex mu_;
  std::string buffer_;
  bool pending_ = false;
};
static Logger logger;

int main() {
  testonly_init();
  std::thread([] {
    logger.append("background job started");
    testonly_signal();
  }).detach();
  testonly_wait();
  std::puts("main done");
}
