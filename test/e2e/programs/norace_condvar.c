/* The consumer reads `data` only after waiting for `ready`, which the
 * producer sets under the mutex after writing `data`. */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>

int data;
int ready;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static void *consumer(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  testonly_signal(); /* the producer starts once we wait */
  while (!ready)
    pthread_cond_wait(&cv, &m);
  pthread_mutex_unlock(&m);
  printf("data=%d\n", data);
  return NULL;
}

int main(void) {
  pthread_t t;
  testonly_init();
  pthread_create(&t, NULL, consumer, NULL);
  testonly_wait();
  data = 42;
  pthread_mutex_lock(&m);
  ready = 1;
  pthread_cond_signal(&cv);
  pthread_mutex_unlock(&m);
  pthread_join(t, NULL);
  return 0;
}
