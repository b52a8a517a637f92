// A worker pool whose workers wait for jobs with condition_variable::
// wait_for and do housekeeping on each idle time-out, which is also when
// they notice the shutdown flag (set without a notify, once every worker
// has been idle); the job queue is locked correctly, but the idle tally is
// bumped after unlocking, so two workers race on it. Replay: a wait the trace
// shows timed out returns once its deadline has passed, as libstdc++ decides
// cv_status by the clock. (No notify: a wait notified just before its deadline
// may return after it while recording, a path replay cannot rebuild,
// docs/replay.md.)
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
static unsigned went_idle = 0; // one bit per worker, under mu
static int idle_ticks = 0;

static void worker(int id, long *done) {
  for (;;) {
    std::unique_lock<std::mutex> lk(mu);
    if (!cv.wait_for(lk, std::chrono::milliseconds(5),
                     [] { return shutting_down || !jobs.empty(); })) {
      went_idle |= 1u << id;
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
  for (int j = 1; j <= 4; j++)
    jobs.push_back(j);
  std::vector<std::thread> pool;
  for (int i = 0; i < 2; i++)
    pool.emplace_back(worker, i, &done[i]);
  // Shut down once every worker has been idle (however late it started).
  for (bool all_idle = false; !all_idle;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::lock_guard<std::mutex> g(mu);
    all_idle = went_idle == 3;
    shutting_down = all_idle;
  }
  for (auto &t : pool)
    t.join();
  std::printf("done=%ld idle=%d\n", done[0] + done[1], idle_ticks > 0);
}
