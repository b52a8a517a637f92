/* Two threads take locks a and b in opposite orders. The observed run is
 * fixed so that t1 finishes both sections before t2 starts (the pipe of
 * testonly.h, which the recorder does not see): nothing deadlocks. In the
 * other order each holds one lock and waits for the other, and main's join
 * of t1 never returns. */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>
// expect-deadlock: t1@B1 t2@A2 t0@J1
// expect-kind: lock-order

pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
int total;

static void *first(void *arg) {
  (void)arg;
  pthread_mutex_lock(&a);
  pthread_mutex_lock(&b); // @B1
  total += 1;
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  testonly_signal();
  return NULL;
}

static void *second(void *arg) {
  (void)arg;
  testonly_wait();
  pthread_mutex_lock(&b);
  pthread_mutex_lock(&a); // @A2
  total += 2;
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&b);
  return NULL;
}

int main(void) {
  pthread_t t1, t2;
  testonly_init();
  pthread_create(&t1, NULL, first, NULL);
  pthread_create(&t2, NULL, second, NULL);
  pthread_join(t1, NULL); // @J1
  pthread_join(t2, NULL);
  printf("total=%d\n", total);
  return 0;
}
