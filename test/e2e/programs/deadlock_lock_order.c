/* A lock-order inversion that did not deadlock in the observed run: the
 * pipe of testonly.h (invisible to the recorder) lets `second` start only
 * after `first` released both locks. Predicted: first holds a and waits
 * for b while second holds b and waits for a; replay confirms it (the
 * watchdog sees both threads blocked and ends the process). */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>
// expect-deadlock: t1@A t2@B t0@J
// expect-kind: lock-order

pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
int counter;

static void *first(void *arg) {
  (void)arg;
  pthread_mutex_lock(&a);
  pthread_mutex_lock(&b); // @A
  counter++;
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  testonly_signal();
  return NULL;
}

static void *second(void *arg) {
  (void)arg;
  testonly_wait();
  pthread_mutex_lock(&b);
  pthread_mutex_lock(&a); // @B
  counter++;
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&b);
  return NULL;
}

int main(void) {
  pthread_t t1, t2;
  testonly_init();
  pthread_create(&t1, NULL, first, NULL);
  pthread_create(&t2, NULL, second, NULL);
  pthread_join(t1, NULL); // @J
  pthread_join(t2, NULL);
  printf("counter=%d\n", counter);
  return 0;
}
