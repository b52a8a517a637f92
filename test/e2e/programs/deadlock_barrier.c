/* t2 holds m across a barrier that t1 reaches only after taking m. In the
 * observed run t1 took and released m first; if t2 takes m first, t2 waits
 * at the barrier (1 of 2 arrived) for t1, which waits for m. */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>
// expect-deadlock: t1@L t2@B t0@J
// expect-kind: barrier

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_barrier_t bar;
int shared;

static void *first(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m); // @L
  shared += 1;
  pthread_mutex_unlock(&m);
  testonly_signal();
  pthread_barrier_wait(&bar);
  return NULL;
}

static void *second(void *arg) {
  (void)arg;
  testonly_wait();
  pthread_mutex_lock(&m);
  shared += 2;
  pthread_barrier_wait(&bar); // @B
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(void) {
  pthread_t t1, t2;
  testonly_init();
  pthread_barrier_init(&bar, NULL, 2);
  pthread_create(&t1, NULL, first, NULL);
  pthread_create(&t2, NULL, second, NULL);
  pthread_join(t1, NULL); // @J
  pthread_join(t2, NULL);
  pthread_barrier_destroy(&bar);
  printf("shared=%d\n", shared);
  return 0;
}
