/* TSan misses this race: in the observed run both accesses are ordered by
 * the critical sections on m (which protect nothing about x), so
 * happens-before sees no race. The maximal model swaps the two critical
 * sections and predicts it. */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>
// expect-race: A B

int x;
int unrelated;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *first(void *arg) {
  (void)arg;
  x = 1; // @A
  pthread_mutex_lock(&m);
  unrelated = 1;
  pthread_mutex_unlock(&m);
  testonly_signal();
  return NULL;
}

static void *second(void *arg) {
  (void)arg;
  testonly_wait();
  pthread_mutex_lock(&m);
  unrelated = 2;
  pthread_mutex_unlock(&m);
  printf("x=%d\n", x); // @B
  return NULL;
}

int main(void) {
  pthread_t a, b;
  testonly_init();
  pthread_create(&a, NULL, first, NULL);
  pthread_create(&b, NULL, second, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  return 0;
}
