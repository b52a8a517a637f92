/* A race after a condition-variable hand-off and a barrier: the witness
 * runs the wait in its two halves (release, then return after the signal)
 * and the barrier as arrivals then departures, so replaying it exercises
 * the replay runtime's own condition variables and barriers. The pipe of
 * testonly.h makes the consumer wait for real in the observed run. */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>
// expect-race: A B

int ready;
int x;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
pthread_barrier_t bar;

static void *producer(void *arg) {
  (void)arg;
  testonly_wait();
  pthread_mutex_lock(&m);
  ready = 1;
  pthread_cond_signal(&c);
  pthread_mutex_unlock(&m);
  pthread_barrier_wait(&bar);
  x = 1; // @A
  return NULL;
}

static void *consumer(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  testonly_signal();
  while (!ready)
    pthread_cond_wait(&c, &m);
  pthread_mutex_unlock(&m);
  pthread_barrier_wait(&bar);
  printf("x=%d\n", x); // @B
  return NULL;
}

int main(void) {
  pthread_t p, q;
  testonly_init();
  pthread_barrier_init(&bar, NULL, 2);
  pthread_create(&q, NULL, consumer, NULL);
  pthread_create(&p, NULL, producer, NULL);
  pthread_join(p, NULL);
  pthread_join(q, NULL);
  return 0;
}
