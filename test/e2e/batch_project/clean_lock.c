/* Every access of the counter holds the same mutex: no race. */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>

int counter;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg) {
  (void)arg;
  testonly_wait();
  pthread_mutex_lock(&m);
  counter = counter + 1;
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(void) {
  pthread_t t;
  testonly_init();
  pthread_create(&t, NULL, worker, NULL);
  pthread_mutex_lock(&m);
  counter = 10;
  pthread_mutex_unlock(&m);
  testonly_signal();
  pthread_join(t, NULL);
  printf("counter=%d\n", counter);
  return 0;
}
