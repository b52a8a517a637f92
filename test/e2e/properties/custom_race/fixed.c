/* The custom race detector's twin: y is accessed under the lock too. */
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int x, y;

static void *producer(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  x = 1;
  y = 2;
  pthread_mutex_unlock(&m);
  return 0;
}

static void *consumer(void *arg) {
  int seen;
  (void)arg;
  pthread_mutex_lock(&m);
  seen = x;
  seen += y;
  pthread_mutex_unlock(&m);
  return (void *)(long)seen;
}

int main(void) {
  pthread_t p, c;
  pthread_create(&p, 0, producer, 0);
  pthread_create(&c, 0, consumer, 0);
  pthread_join(p, 0);
  pthread_join(c, 0);
  return 0;
}
