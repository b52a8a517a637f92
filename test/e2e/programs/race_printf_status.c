/* A worker publishes its progress as a status line (snprintf) that a
 * monitor thread prints with printf("%s") and no lock: printf reads the
 * line while the worker may be rewriting it. ThreadSanitizer reports it
 * (its printf interceptor reads %s arguments, check_printf); the recorder
 * sees printf's reads and snprintf's writes of the line (stdio_hooks.cpp,
 * instrument/FormatCalls.cpp). */
#include <pthread.h>
#include <stdio.h>
// expect-race: W P

char status[32] = "starting";

static void *worker(void *arg) {
  (void)arg;
  for (int step = 1; step <= 3; ++step)
    snprintf(status, sizeof status, "step %d of 3", step); // @W
  return NULL;
}

static void *monitor(void *arg) {
  (void)arg;
  printf("status: %.20s\n", status); // @P
  return NULL;
}

int main(void) {
  pthread_t w, m;
  pthread_create(&m, NULL, monitor, NULL);
  pthread_create(&w, NULL, worker, NULL);
  pthread_join(w, NULL);
  pthread_join(m, NULL);
  return 0;
}
