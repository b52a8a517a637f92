/* Races only when run as CTest says: with BATCH_ENV=racy in the
 * environment and envdir/ (which holds marker.txt) as working directory. */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int shared;

static void *worker(void *arg) {
  (void)arg;
  testonly_wait();
  shared = 2; // @E1
  return NULL;
}

int main(void) {
  const char *env = getenv("BATCH_ENV");
  if (!env || strcmp(env, "racy") != 0 || access("marker.txt", R_OK) != 0) {
    printf("not run as the test says: no race\n");
    return 0;
  }
  pthread_t t;
  testonly_init();
  pthread_create(&t, NULL, worker, NULL);
  shared = 1; // @E0
  testonly_signal();
  pthread_join(t, NULL);
  return 0;
}
