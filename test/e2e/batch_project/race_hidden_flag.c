/* A race the analysis predicts but replay cannot enforce: `reader` spins on
 * a plain flag that `writer` sets, in helpers the pass leaves
 * uninstrumented (as code in an uninstrumented library would be). The
 * trace shows no order between the threads but the unrelated lock, so the
 * witness runs reader's print of `x` before writer's store — a schedule
 * the hidden flag forbids. The replay ends `diverged`: batch lists the race
 * as unconfirmed and does not fail the test. */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>

int x;
int unrelated;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *writer(void *arg) {
  (void)arg;
  x = 1; // @X1
  pthread_mutex_lock(&m);
  unrelated = 1;
  pthread_mutex_unlock(&m);
  testonly_flag_set();
  return NULL;
}

static void *reader(void *arg) {
  (void)arg;
  testonly_flag_wait();
  pthread_mutex_lock(&m);
  unrelated = 2;
  pthread_mutex_unlock(&m);
  printf("x=%d\n", x); // @X2
  return NULL;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, writer, NULL);
  pthread_create(&b, NULL, reader, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  return 0;
}
