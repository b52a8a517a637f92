/* Races, then crashes: the runtime flushes the trace on SIGABRT, so the
 * race is still predicted from the crashed run. */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

int status_word;

static void *worker(void *arg) {
  (void)arg;
  testonly_wait();
  status_word = 2; // @C1
  return NULL;
}

int main(void) {
  pthread_t t;
  testonly_init();
  pthread_create(&t, NULL, worker, NULL);
  status_word = 1; // @C0
  testonly_signal();
  pthread_join(t, NULL);
  fprintf(stderr, "status %d: giving up\n", status_word);
  abort();
}
