/* A job's status line: the worker formats each phase and strcpy's it in
 * under the lock; the monitor strlen's and strcmp's the line without the
 * lock to print progress (ThreadSanitizer intercepts all three and reports
 * the reads against the copy). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
// expect-race: W L
// expect-race: W C

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
  size_t n = strlen(status);              // @L
  int idle = strcmp(status, "idle") == 0; // @C
  pthread_join(t, NULL);
  printf("%zu %s %s\n", n, idle ? "idle" : "busy", status);
  return 0;
}
