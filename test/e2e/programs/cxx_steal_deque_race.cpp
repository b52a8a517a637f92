// A work-stealing deque: the owner publishes tasks with release stores of
// bottom, the thief steals with acquire loads and a CAS on top, so the
// task payloads are race-free; the "last stolen" bookkeeping field is a
// plain member the owner reads while the thief writes it.
#include <atomic>
#include <cstdio>
#include <thread>
// expect-race: A B

struct Task {
  int id;
  int cost;
};

class StealDeque {
public:
  void push(Task t) {
    long b = bottom_.load(std::memory_order_relaxed);
    buf_[b % 64] = t;
    bottom_.store(b + 1, std::memory_order_release);
  }
  bool steal(Task &out) {
    long t = top_.load(std::memory_order_acquire);
    long b = bottom_.load(std::memory_order_acquire);
    if (t >= b)
      return false;
    out = buf_[t % 64];
    if (!top_.compare_exchange_strong(t, t + 1, std::memory_order_acq_rel))
      return false;
    last_stolen_ = out.id; // @A
    return true;
  }
  int last_stolen() const { return last_stolen_; } // @B

private:
  Task buf_[64];
  std::atomic<long> top_{0}, bottom_{0};
  int last_stolen_ = -1;
};

int main() {
  StealDeque dq;
  for (int i = 0; i < 8; i++)
    dq.push(Task{i, i * 3});
  long stolen_cost = 0;
  std::thread thief([&] {
    Task t;
    for (int i = 0; i < 4; i++)
      if (dq.steal(t))
        stolen_cost += t.cost;
  });
  int seen = dq.last_stolen();
  thief.join();
  std::printf("seen=%d cost=%ld\n", seen, stolen_cost);
}
