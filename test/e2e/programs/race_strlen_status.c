/* A job's status line: the worker formats each phase and strcpy's it in
 * under the lock; the monitor strlen's the line without the lock to print
 * progress (ThreadSanitizer intercepts both and reports the read against
 * the copy). One unlocked read only: a second one after it (a strcmp) races
 * too, but when the worker has copied both phases before the monitor reads
 * in the recording, the first read's bytes pin the last copy before the
 * second read and the model cannot move them apart; which thread the
 * recording runs first depends on the machine's load. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
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
  for (int i = 1; i <= steps; ++i)
    set_phase(i, steps);
  return NULL;
}

int main(void) {
  int steps = 2;
  pthread_t t;
  pthread_create(&t, NULL, worker, &steps);
  size_t n = strlen(status); // @L
  pthread_join(t, NULL);
  printf("%zu %s\n", n, status);
  return 0;
}
