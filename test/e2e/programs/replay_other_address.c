/* Confirmation checks the replayed run's real addresses. Recorded without
 * RP_TEST_INDEX, `reader` reads cells[0], which `writer` writes: a race.
 * Replayed with RP_TEST_INDEX=1 in the environment, the same schedule runs
 * the same events at the same source locations, but the read touches
 * cells[1]: the replay must say not-reproduced, not confirm the race the
 * trace's location names predict. */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
// expect-race: A B

int cells[2];
int index_;

static void *writer(void *arg) {
  (void)arg;
  cells[0] = 1; // @A
  testonly_signal();
  return NULL;
}

static void *reader(void *arg) {
  (void)arg;
  testonly_wait();
  printf("cell=%d\n", cells[index_]); // @B
  return NULL;
}

int main(void) {
  pthread_t w, r;
  testonly_init();
  index_ = getenv("RP_TEST_INDEX") ? 1 : 0;
  pthread_create(&w, NULL, writer, NULL);
  pthread_create(&r, NULL, reader, NULL);
  pthread_join(w, NULL);
  pthread_join(r, NULL);
  return 0;
}
