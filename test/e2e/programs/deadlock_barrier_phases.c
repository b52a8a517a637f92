/* Carril 2017, Fig. 4.18: the two lock orders are in different phases of a
 * barrier. t1 nests a then b before the barrier, t2 nests b then a after
 * it; every interleaving finishes t1's sections before t2's start. */
#include <pthread.h>
#include <stdio.h>
// expect-deadlock: none

pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
pthread_barrier_t phase;
int total;

static void *first(void *arg) {
  (void)arg;
  pthread_mutex_lock(&a);
  pthread_mutex_lock(&b);
  total += 1;
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  pthread_barrier_wait(&phase);
  return NULL;
}

static void *second(void *arg) {
  (void)arg;
  pthread_barrier_wait(&phase);
  pthread_mutex_lock(&b);
  pthread_mutex_lock(&a);
  total += 2;
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&b);
  return NULL;
}

int main(void) {
  pthread_t t1, t2;
  pthread_barrier_init(&phase, NULL, 2);
  pthread_create(&t1, NULL, first, NULL);
  pthread_create(&t2, NULL, second, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  pthread_barrier_destroy(&phase);
  printf("total=%d\n", total);
  return 0;
}
