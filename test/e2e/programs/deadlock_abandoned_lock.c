/* A thread that returns still holding a mutex (a forgotten unlock). In the
 * observed run the other thread took and released m before (testonly.h);
 * if the forgetful thread runs first, the other one waits forever for a
 * lock whose holder has finished, and main's join of it never returns. */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>
// expect-deadlock: t2@L t0@J
// expect-kind: abandoned-lock

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int value;

static void *forgetful(void *arg) {
  (void)arg;
  testonly_wait(); /* the other thread is done with m */
  pthread_mutex_lock(&m);
  value += 1;
  return NULL; /* m stays locked */
}

static void *user(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m); // @L
  value += 2;
  pthread_mutex_unlock(&m);
  testonly_signal();
  return NULL;
}

int main(void) {
  pthread_t t1, t2;
  testonly_init();
  pthread_create(&t1, NULL, forgetful, NULL);
  pthread_create(&t2, NULL, user, NULL);
  pthread_join(t2, NULL); // @J
  pthread_join(t1, NULL);
  printf("value=%d\n", value);
  return 0;
}
