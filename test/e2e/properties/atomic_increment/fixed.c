/* increment() fixed: one atomic read-modify-write, so the region has a
 * single access and no interleaving can split it. */
#include <pthread.h>
#include <stdatomic.h>

static atomic_int counter;

void increment(void) { atomic_fetch_add(&counter, 1); }

static void *worker(void *arg) {
  (void)arg;
  increment();
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  increment();
  pthread_join(t, 0);
  return atomic_load(&counter) == 2 ? 0 : 1;
}
