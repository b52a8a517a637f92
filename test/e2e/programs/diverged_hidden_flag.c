/* Ad-hoc synchronisation the recorder cannot see: `second` spins on a
 * plain flag that `first` sets after its critical section, in helpers the
 * pass leaves uninstrumented (as code in an uninstrumented library would
 * be). The trace shows no order between the threads except the lock m, so
 * the analysis predicts a race on x by running second's critical section
 * first — a schedule the hidden flag forbids. Replay cannot enforce it:
 * second never gets past the spin while first waits for its turn, and the
 * replay ends as `diverged` (never `confirmed`). */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>
// expect-race: A B
// expect-replay: diverged

int x;
int unrelated;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *first(void *arg) {
  (void)arg;
  x = 1; // @A
  pthread_mutex_lock(&m);
  unrelated = 1;
  pthread_mutex_unlock(&m);
  testonly_flag_set();
  return NULL;
}

static void *second(void *arg) {
  (void)arg;
  testonly_flag_wait();
  pthread_mutex_lock(&m);
  unrelated = 2;
  pthread_mutex_unlock(&m);
  printf("x=%d\n", x); // @B
  return NULL;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, first, NULL);
  pthread_create(&b, NULL, second, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  return 0;
}
