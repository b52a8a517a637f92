// A worker pool whose workers wait for jobs with condition_variable::
// wait_for and do housekeeping on each idle time-out; the job queue is
// locked correctly, but the idle tally is bumped after unlocking, so two
// workers race on it. Replay: a wait the trace shows timed out returns once
// its deadline has passed, as libstdc++ decides cv_status by the clock.
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>
// expect-race: A A

static std::mutex mu;
static std::condition_variable cv;
static std::deque<int> jobs;
static bool shutting_down = false;
static int idle_ticks = 0;

static void worker(long *done) {
  for (;;) {
    std::unique_lock<std::mutex> lk(mu);
    if (!cv.wait_for(lk, std::chrono::milliseconds(5),
                     [] { return shutting_down || !jobs.empty(); })) {
      lk.unlock();
      idle_ticks++; // @A
      continue;
    }
    if (jobs.empty())
      return;
    *done += jobs.front();
    jobs.pop_front();
  }
}

int main() {
  long done[2] = {0, 0};
  std::vector<std::thread> pool;
  for (int i = 0; i < 2; i++)
    pool.emplace_back(worker, &done[i]);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  {
    std::lock_guard<std::mutex> g(mu);
    shutting_down = true;
  }
  cv.notify_all();
  for (auto &t : pool)
    t.join();
  std::printf("done=%ld idle=%d\n", done[0] + done[1], idle_ticks > 0);
}
