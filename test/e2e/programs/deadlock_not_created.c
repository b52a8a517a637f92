/* Main takes a then b, and only then creates its second worker; the first
 * worker takes b then a. In the observed run main finished its section
 * before the worker started (testonly.h); in the other order main and the
 * worker each wait for the other's lock, and the second worker is never
 * created: its creator is blocked before the pthread_create. */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>
// expect-deadlock: t0@M t1@W t2@C
// expect-kind: lock-order

pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
int total;

static void *worker(void *arg) {
  (void)arg;
  testonly_wait(); /* main is done with a and b */
  pthread_mutex_lock(&b);
  pthread_mutex_lock(&a); // @W
  total += 1;
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&b);
  return NULL;
}

static void *late(void *arg) {
  (void)arg;
  return NULL;
}

int main(void) {
  pthread_t t1, t2;
  testonly_init();
  pthread_create(&t1, NULL, worker, NULL);
  pthread_mutex_lock(&a);
  pthread_mutex_lock(&b); // @M
  total += 2;
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  testonly_signal();
  pthread_create(&t2, NULL, late, NULL); // @C
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  printf("total=%d\n", total);
  return 0;
}
