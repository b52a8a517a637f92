/* A known race in legacy code: the suppressions file of the test names
 * legacy_update, so batch reports it as suppressed, never as new. */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>

int legacy_state;

static void legacy_update(int v) {
  legacy_state = v; // @L
}

static void *worker(void *arg) {
  (void)arg;
  testonly_wait();
  legacy_update(2);
  return NULL;
}

int main(void) {
  pthread_t t;
  testonly_init();
  pthread_create(&t, NULL, worker, NULL);
  legacy_state = 1; // @S
  testonly_signal();
  pthread_join(t, NULL);
  printf("%d\n", legacy_state);
  return 0;
}
