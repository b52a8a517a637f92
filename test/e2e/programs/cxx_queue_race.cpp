// A work queue of std::string jobs with std::condition_variable: a worker
// counts what it processed under the queue's mutex; main prints progress
// without it. In the recorded run main looks only after the worker is done
// (an order the recorder cannot see), so the two never overlap there.
#include "testonly.h"
#include <condition_variable>
#include <deque>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
// expect-race: A B
// expect-stack: B WorkQueue::processed main

static const std::string kJobs[] = {"index.html", "style.css", "logo.png"};

class WorkQueue {
public:
  void push(std::string job) {
    {
      std::lock_guard<std::mutex> g(mu_);
      jobs_.push_back(std::move(job));
    }
    cv_.notify_one();
  }
  void close() {
    std::lock_guard<std::mutex> g(mu_);
    closed_ = true;
    cv_.notify_all();
  }
  bool pop(std::string &job) {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [this] { return !jobs_.empty() || closed_; });
    if (jobs_.empty())
      return false;
    job = std::move(jobs_.front());
    jobs_.pop_front();
    ++processed_; // @A
    return true;
  }
  int processed() const { return processed_; } // @B

private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> jobs_;
  bool closed_ = false;
  int processed_ = 0;
};

static WorkQueue queue;

int main() {
  testonly_init();
  std::thread worker([] {
    std::string job;
    size_t bytes = 0;
    while (queue.pop(job))
      bytes += job.size();
    std::cout << "served " << bytes << " bytes" << std::endl;
    testonly_signal();
  });
  for (const auto &j : kJobs)
    queue.push(j);
  queue.close();
  testonly_wait();
  std::cout << "progress: " << queue.processed() << std::endl;
  worker.join();
}
