/* Two unsynchronised writes of a counter; the pipe orders them in the
 * recorded run (the recorder does not see it), so the race is predicted. */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>

int hits;

static void *worker(void *arg) {
  (void)arg;
  testonly_wait();
  hits = hits + 1; // @W
  return NULL;
}

int main(void) {
  pthread_t t;
  testonly_init();
  pthread_create(&t, NULL, worker, NULL);
  hits = 10; // @M
  testonly_signal();
  pthread_join(t, NULL);
  printf("hits=%d\n", hits);
  return 0;
}
