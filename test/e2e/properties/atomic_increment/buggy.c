/* Atomicity violation of increment() on an atomic variable (Carril 2017
 * §6): each access to the counter is atomic, the load-then-store pair is
 * not. The observed run serialises the two calls (a test-only pipe the
 * recorder does not see); the other thread's store between a load and its
 * store (R-W-W) is predicted — both calls share the code, so one line
 * tuple.
 * (The thesis' program is not available; this is a small program of the
 * scenario it describes.)
 * expect-violation: increment_atomic begin load store store */
#include <pthread.h>
#include <stdatomic.h>

#include "testonly.h"

static atomic_int counter;

void increment(void) {           // @begin
  int v = atomic_load(&counter); // @load
  atomic_store(&counter, v + 1); // @store
}

static void *worker(void *arg) {
  (void)arg;
  testonly_wait();
  increment();
  return 0;
}

int main(void) {
  pthread_t t;
  testonly_init();
  pthread_create(&t, 0, worker, 0);
  increment();
  testonly_signal();
  pthread_join(t, 0);
  return atomic_load(&counter) == 2 ? 0 : 1;
}
