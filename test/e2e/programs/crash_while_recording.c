/* Crashes (SIGSEGV) after a few recorded events: `racepredict run` must
 * stop with status 2, say so, and keep the trace the runtime flushed in
 * its fatal-signal handler. */
#include <pthread.h>
#include <stdio.h>

int x;
int *volatile nowhere;

static void *worker(void *arg) {
  (void)arg;
  x = 1;
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  printf("about to crash\n");
  fflush(stdout);
  return *nowhere;
}
