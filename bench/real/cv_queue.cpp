// Analysis benchmark (issue 17): a C++ work queue in the shape of unit-test
// programs — std::mutex, std::condition_variable, std::deque of owned
// tasks, many short critical sections. Producers fill a task outside the
// lock and push it; consumers pop it and read its payload outside the lock
// (ordered only through the queue), add the result to a lock-protected
// total, and record their progress without the lock (the race to
// predict). Usage: cv_queue PRODUCERS CONSUMERS TASKS
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

struct Task {
  long id = 0;
  std::vector<int> payload;
  long sum() const {
    long s = 0;
    for (int v : payload)
      s += v;
    return s;
  }
};

class WorkQueue {
public:
  void push(std::unique_ptr<Task> t) {
    {
      std::lock_guard<std::mutex> g(m_);
      items_.push_back(std::move(t));
    }
    ready_.notify_one();
  }
  // Null once the queue is closed and drained.
  std::unique_ptr<Task> pop() {
    std::unique_lock<std::mutex> g(m_);
    ready_.wait(g, [this] { return !items_.empty() || closed_; });
    if (items_.empty())
      return nullptr;
    std::unique_ptr<Task> t = std::move(items_.front());
    items_.pop_front();
    return t;
  }
  void close() {
    {
      std::lock_guard<std::mutex> g(m_);
      closed_ = true;
    }
    ready_.notify_all();
  }

private:
  std::mutex m_;
  std::condition_variable ready_;
  std::deque<std::unique_ptr<Task>> items_;
  bool closed_ = false;
};

static WorkQueue queue;
static std::mutex totalLock;
static long total;
static long progress; // written without a lock

int main(int argc, char **argv) {
  int producers = argc > 1 ? std::atoi(argv[1]) : 2;
  int consumers = argc > 2 ? std::atoi(argv[2]) : 2;
  long tasks = argc > 3 ? std::atol(argv[3]) : 200;
  std::vector<std::thread> ps, cs;
  for (int c = 0; c < consumers; ++c)
    cs.emplace_back([] {
      while (std::unique_ptr<Task> t = queue.pop()) {
        long s = t->sum();
        {
          std::lock_guard<std::mutex> g(totalLock);
          total += s;
        }
        progress = t->id;
      }
    });
  for (int p = 0; p < producers; ++p)
    ps.emplace_back([p, producers, tasks] {
      for (long i = p; i < tasks; i += producers) {
        auto t = std::make_unique<Task>();
        t->id = i;
        for (int k = 0; k < 4; ++k)
          t->payload.push_back(static_cast<int>(i + k));
        queue.push(std::move(t));
      }
    });
  for (auto &t : ps)
    t.join();
  queue.close();
  for (auto &t : cs)
    t.join();
  std::printf("total=%ld progress=%ld\n", total, progress);
  return 0;
}
