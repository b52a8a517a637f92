/* A custom race detector on two globals (Carril 2017 §6): x is always
 * accessed under the lock; y is written by the producer after it unlocks
 * and read by the consumer without the lock. The observed run orders the
 * two threads with a test-only pipe (the recorder does not see it), so the
 * race on y did not manifest; it is predicted, with the store first (t1 is
 * the producer) and with the load first (t1 is the consumer).
 * (The thesis' program is not available; this is a small program of the
 * scenario it describes.)
 * expect-violation: race ystore yload
 * expect-violation: race yload ystore */
#include <pthread.h>

#include "testonly.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int x, y;

static void *producer(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  x = 1;
  pthread_mutex_unlock(&m);
  y = 2; // @ystore
  testonly_signal();
  return 0;
}

static void *consumer(void *arg) {
  int seen;
  (void)arg;
  testonly_wait();
  pthread_mutex_lock(&m);
  seen = x;
  pthread_mutex_unlock(&m);
  seen += y; // @yload
  return (void *)(long)seen;
}

int main(void) {
  pthread_t p, c;
  testonly_init();
  pthread_create(&p, 0, producer, 0);
  pthread_create(&c, 0, consumer, 0);
  pthread_join(p, 0);
  pthread_join(c, 0);
  return 0;
}
