/* The opposite orders of deadlock_opposite_order.c, each inside a section
 * of one gate lock g: no two threads can hold a or b at once, so no
 * interleaving deadlocks. */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>
// expect-deadlock: none

pthread_mutex_t g = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
int total;

static void *first(void *arg) {
  (void)arg;
  pthread_mutex_lock(&g);
  pthread_mutex_lock(&a);
  pthread_mutex_lock(&b);
  total += 1;
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&g);
  testonly_signal();
  return NULL;
}

static void *second(void *arg) {
  (void)arg;
  testonly_wait();
  pthread_mutex_lock(&g);
  pthread_mutex_lock(&b);
  pthread_mutex_lock(&a);
  total += 2;
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&g);
  return NULL;
}

int main(void) {
  pthread_t t1, t2;
  testonly_init();
  pthread_create(&t1, NULL, first, NULL);
  pthread_create(&t2, NULL, second, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  printf("total=%d\n", total);
  return 0;
}
