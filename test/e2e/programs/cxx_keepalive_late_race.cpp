// A connection's keep-alive monitor: it wakes on every request (notify) and
// at least every 5 ms (wait_for); on cv_status::timeout it sends a ping and
// stamps last_ping. The request handler notifies while holding the lock and
// writes its log line before unlocking, so the monitor it woke takes the
// mutex back after its deadline: libstdc++ then says cv_status::timeout (it
// compares now() with the deadline), although the wait was notified. The
// handler reads last_ping for its status line without the lock: a race with
// the monitor's stamp, written after the unlock. Replay: the notified wait
// returns only once its deadline has passed, as it did while recording
// (docs/replay.md, "Timed calls"); returning at once took the other branch.
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>
// expect-race: A B

static std::mutex mu;
static std::condition_variable cv;
static bool monitor_waiting = false;
static bool closing = false;
static int requests = 0;
static int pings = 0;
static long last_ping = 0;

static void monitor() {
  std::unique_lock<std::mutex> lk(mu);
  while (!closing) {
    monitor_waiting = true;
    std::cv_status st = cv.wait_for(lk, std::chrono::milliseconds(5));
    monitor_waiting = false;
    if (st == std::cv_status::timeout) {
      int n = ++pings;
      lk.unlock();
      last_ping = n; // @A
      lk.lock();
    } else {
      ++requests;
    }
  }
}

int main() {
  std::thread m(monitor);
  for (int i = 0; i < 3; ++i) {
    // A request comes in while the monitor waits.
    for (bool sent = false; !sent;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      std::lock_guard<std::mutex> g(mu);
      if (monitor_waiting) {
        cv.notify_one();
        // The log line, written under the lock (slow: a disk write).
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        sent = true;
      }
    }
    std::printf("request %d, last ping %ld\n", i, last_ping); // @B
  }
  {
    std::lock_guard<std::mutex> g(mu);
    closing = true;
  }
  cv.notify_one();
  m.join();
  std::printf("requests %d\n", requests >= 0);
}
