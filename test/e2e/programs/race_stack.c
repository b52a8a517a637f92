/* Call stacks in reports: the racing write is two calls deep in the worker
 * thread. bump() is a real call (shadow stack: func_enter/func_exit and the
 * caller's call site); update() is always inlined, so its frame comes from
 * the debug info's inlined-at chain. Both must show, at -O0 and -O2, as
 * TSan shows them: #0 bump, #1 update, #2 worker. The report names the
 * variable (the module's globals table), not its address. */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>
// expect-race: A B
// expect-stack: A bump update worker
// expect-stack: B main
// expect-location: counter

int counter;

__attribute__((noinline)) static void bump(int by) {
  counter = by; // @A
}

__attribute__((always_inline)) static inline void update(int by) { bump(by); }

static void *worker(void *arg) {
  (void)arg;
  update(2);
  testonly_signal();
  return NULL;
}

int main(void) {
  pthread_t t;
  testonly_init();
  pthread_create(&t, NULL, worker, NULL);
  testonly_wait();
  printf("counter=%d\n", counter); // @B
  pthread_join(t, NULL);
  return 0;
}
