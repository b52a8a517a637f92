/* Opposite lock orders in two threads that never run at the same time:
 * main joins the first before it creates the second. */
#include <pthread.h>
#include <stdio.h>
// expect-deadlock: none

pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
int total;

static void *first(void *arg) {
  (void)arg;
  pthread_mutex_lock(&a);
  pthread_mutex_lock(&b);
  total += 1;
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  return NULL;
}

static void *second(void *arg) {
  (void)arg;
  pthread_mutex_lock(&b);
  pthread_mutex_lock(&a);
  total += 2;
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&b);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, first, NULL);
  pthread_join(t, NULL);
  pthread_create(&t, NULL, second, NULL);
  pthread_join(t, NULL);
  printf("total=%d\n", total);
  return 0;
}
