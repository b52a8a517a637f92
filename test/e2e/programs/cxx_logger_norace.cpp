// The twin of cxx_logger_race.cpp: the destructor flushes under the
// logger's mutex.
#include "testonly.h"
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

class Logger {
public:
  ~Logger() {
    std::lock_guard<std::mutex> g(mu_);
    if (pending_)
      std::fputs(buffer_.c_str(), stderr);
  }
  void append(const std::string &line) {
    std::lock_guard<std::mutex> g(mu_);
    buffer_ += line;
    buffer_ += '\n';
    pending_ = true;
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
