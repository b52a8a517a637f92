/* Every access of the counter is guarded by the same mutex. */
#include <pthread.h>
#include <stdio.h>

int counter;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg) {
  (void)arg;
  for (int i = 0; i < 3; ++i) {
    pthread_mutex_lock(&m);
    counter = counter + 1;
    pthread_mutex_unlock(&m);
  }
  return NULL;
}

int main(void) {
  pthread_t t[3];
  for (int i = 0; i < 3; ++i)
    pthread_create(&t[i], NULL, worker, NULL);
  for (int i = 0; i < 3; ++i)
    pthread_join(t[i], NULL);
  printf("counter=%d\n", counter);
  return 0;
}
