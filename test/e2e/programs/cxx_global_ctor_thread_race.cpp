// A metrics flusher started by a global object's constructor, before main
// runs: it counts its flushes in a plain field. main reads the count when
// it prints its banner, with no synchronisation with the flusher; the
// destructor (after main) stops and joins it.
#include <atomic>
#include <cstdio>
#include <thread>
// expect-race: A B

struct Flusher {
  Flusher() {
    th = std::thread([this] {
      while (!done.load()) {
        ++flushes; // @A
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    });
  }
  ~Flusher() {
    done.store(true);
    th.join();
  }
  std::atomic<bool> done{false};
  int flushes = 0;
  std::thread th;
};

static Flusher flusher;

int main() {
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  std::printf("flushes so far: %d\n", flusher.flushes); // @B
}
