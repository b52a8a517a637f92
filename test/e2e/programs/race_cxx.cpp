// std::thread and std::mutex: one increment is outside the critical section.
#include <cstdio>
#include <mutex>
#include <thread>
// expect-race: A B

static int hits;
static std::mutex m;

int main() {
  std::thread t([] {
    std::lock_guard<std::mutex> g(m);
    hits = hits + 1; // @B
  });
  hits = hits + 10; // @A
  t.join();
  {
    std::lock_guard<std::mutex> g(m);
    hits = hits + 100; // @C
  }
  std::printf("%d\n", hits);
}
