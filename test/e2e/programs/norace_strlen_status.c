/* race_strlen_status.c with the monitor reading under the lock (its strlen
 * and a strcmp as well): ordered with every copy. No race. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static char status[32] = "idle";
static pthread_mutex_t status_lock = PTHREAD_MUTEX_INITIALIZER;

static void set_phase(int step, int of) {
  char line[32];
  snprintf(line, sizeof line, "step %d/%d", step, of);
  pthread_mutex_lock(&status_lock);
  strcpy(status, line);
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
  pthread_mutex_lock(&status_lock);
  size_t n = strlen(status);
  int idle = strcmp(status, "idle") == 0;
  pthread_mutex_unlock(&status_lock);
  pthread_join(t, NULL);
  printf("%zu %s %s\n", n, idle ? "idle" : "busy", status);
  return 0;
}
