/* Writes before pthread_create and after pthread_join: ordered, no race. */
#include <pthread.h>
#include <stdio.h>

int value;

static void *worker(void *arg) {
  (void)arg;
  value = value * 2;
  return NULL;
}

int main(void) {
  pthread_t t;
  value = 21;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  value = value + 0;
  printf("value=%d\n", value);
  return 0;
}
