// A work queue of std::function tasks, each capturing a std::shared_ptr
// to the job's settings: the producer makes the settings, queues tasks for
// two workers and drops its own pointer; whichever task ends last destroys
// the settings (~Settings writes what the tasks read). The counts are
// changed by 4-byte atomic adds, and libstdc++'s release reads both of
// them with one 8-byte atomic load: no race.
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <queue>
#include <string>
#include <thread>
#include <vector>

struct Settings {
  std::string codec = "deflate";
  int level = 6;
  long blockSize = 128 * 1024;
  ~Settings() {
    level = -1;
    blockSize = 0;
  }
};

class TaskQueue {
public:
  void push(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> g(mu_);
      tasks_.push(std::move(task));
    }
    ready_.notify_one();
  }
  void close() {
    {
      std::lock_guard<std::mutex> g(mu_);
      closed_ = true;
    }
    ready_.notify_all();
  }
  bool pop(std::function<void()> &task) {
    std::unique_lock<std::mutex> l(mu_);
    ready_.wait(l, [this] { return closed_ || !tasks_.empty(); });
    if (tasks_.empty())
      return false;
    task = std::move(tasks_.front());
    tasks_.pop();
    return true;
  }

private:
  std::mutex mu_;
  std::condition_variable ready_;
  std::queue<std::function<void()>> tasks_;
  bool closed_ = false;
};

int main() {
  TaskQueue queue;
  long blocks[2] = {0, 0};
  std::vector<std::thread> workers;
  for (int w = 0; w < 2; ++w)
    workers.emplace_back([&queue] {
      std::function<void()> task;
      while (queue.pop(task)) {
        task();
        task = nullptr; // drops the captured pointer
      }
    });
  auto settings = std::make_shared<Settings>();
  for (int b = 0; b < 2; ++b)
    queue.push([s = settings, b, &blocks] {
      blocks[b] = s->blockSize / (s->level + 1) + (long)s->codec.size();
    });
  settings.reset();
  queue.close();
  for (auto &w : workers)
    w.join();
  std::printf("%ld %ld\n", blocks[0], blocks[1]);
}
