/* race_detached.c's twin: the detached workers bump the statistic under the
 * lock too. Every worker is recorded (as there) and nothing races. */
#include <pthread.h>
// record-options: exit_grace_ms=10000

#define WORKERS 4

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
long served;
long results[WORKERS];

static void *serve(void *arg) {
  long id = (long)arg;
  pthread_mutex_lock(&m);
  served++;
  results[id] = id * 10;
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(void) {
  for (long i = 0; i < WORKERS; ++i) {
    pthread_t t;
    pthread_create(&t, NULL, serve, (void *)i);
    pthread_detach(t);
  }
  return 0;
}
