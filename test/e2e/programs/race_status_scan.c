/* A job's status line: the worker formats each phase and strcpy's it in
 * under the lock; the monitor checks it against "idle" (strcmp) and
 * measures it (strlen) without the lock. The recorded run is fixed
 * (testonly.h): the first phase is copied in, the monitor reads, then the
 * second phase. Every byte read of both calls races with the copies (as
 * ThreadSanitizer's interceptors report them). A witness of the strlen race
 * has the worker copy between two byte reads of the one strlen call, and
 * one of strcmp needs its stop after the first differing pair kept: replay
 * must read the bytes one turn at a time, as recorded, and stop where they
 * make it stop. */
#include "testonly.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
// expect-race: W C
// expect-race: W L

static char status[32] = "idle";
static pthread_mutex_t status_lock = PTHREAD_MUTEX_INITIALIZER;

static void set_phase(int step, int of) {
  char line[32];
  snprintf(line, sizeof line, "step %d/%d", step, of);
  pthread_mutex_lock(&status_lock);
  strcpy(status, line); // @W
  pthread_mutex_unlock(&status_lock);
}

static void *worker(void *arg) {
  int steps = *(int *)arg;
  for (int i = 1; i <= steps; ++i) {
    set_phase(i, steps);
    if (i == 1) {
      testonly_signal();
      testonly_take(1);
    }
  }
  return NULL;
}

int main(void) {
  testonly_init();
  int steps = 2;
  pthread_t t;
  pthread_create(&t, NULL, worker, &steps);
  testonly_wait();
  int started = strcmp(status, "idle") != 0; // @C
  size_t n = strlen(status);                 // @L
  testonly_give(1);
  pthread_join(t, NULL);
  printf("%d %zu %s\n", started, n, status);
  return 0;
}
