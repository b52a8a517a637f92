/* Opposite lock orders ordered by a condition variable: the second thread
 * nests b then a only after it has waited for the first thread's notify,
 * which the first sends after its own nesting of a then b. The observed
 * run is fixed (testonly.h) so that the second thread really waits and is
 * woken by that notify. */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>
// expect-deadlock: none

pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
int ready;
int total;

static void *first(void *arg) {
  (void)arg;
  testonly_wait(); /* the second thread is about to wait */
  pthread_mutex_lock(&a);
  pthread_mutex_lock(&b);
  total += 1;
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  pthread_mutex_lock(&mtx);
  ready = 1;
  pthread_cond_signal(&cv);
  pthread_mutex_unlock(&mtx);
  return NULL;
}

static void *second(void *arg) {
  (void)arg;
  pthread_mutex_lock(&mtx);
  testonly_signal();
  while (!ready)
    pthread_cond_wait(&cv, &mtx);
  pthread_mutex_unlock(&mtx);
  pthread_mutex_lock(&b);
  pthread_mutex_lock(&a);
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
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  printf("total=%d\n", total);
  return 0;
}
