// A lookup table built on first use with std::call_once (libstdc++ runs the
// callable through pthread_once via __once_proxy and a thread-local
// pointer to it): the second thread calls lookup() while the first is
// still building the table and waits. Reading the table is race-free; the
// last key looked up, stored without a lock, races.
#include "testonly.h"
#include <cstdio>
#include <mutex>
#include <pthread.h>
#include <unistd.h>
// expect-race: K K

struct Table {
  int size;
  int slots[8];
};

static std::once_flag built;
static Table table;
static int lastKey;

static void build() {
  table.size = 8;
  for (int i = 0; i < 8; ++i)
    table.slots[i] = i * i;
  testonly_signal(); // the second thread may call lookup() now
  usleep(100 * 1000);
}

static int lookup(int key) {
  std::call_once(built, build);
  int v = table.slots[key % table.size];
  lastKey = key; // @K
  return v;
}

static void *reader(void *second) {
  if (second)
    testonly_wait();
  lookup(second ? 8 : 0);
  return nullptr;
}

int main() {
  testonly_init();
  pthread_t first, second;
  pthread_create(&first, nullptr, reader, nullptr);
  pthread_create(&second, nullptr, reader, &second);
  pthread_join(first, nullptr);
  pthread_join(second, nullptr);
  std::printf("last %d\n", lastKey);
}
