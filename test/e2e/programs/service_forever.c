/* A service that never ends: worker threads take requests forever (under a
 * lock) and bump a statistic without it (the race); main waits for them,
 * which never happens. Recorded as is, `racepredict run` used to record
 * until it was killed and report nothing. run_limits.py ends the recording
 * with --record-timeout, with Ctrl-C (SIGINT to the process group) and
 * with SIGTERM to `run`, and the program run directly with max_events and
 * max_trace_bytes: every time the trace is whole and the race is predicted
 * and confirmed (docs/recording.md, "Recording limits"). */
#include <pthread.h>
#include <unistd.h>
// expect-race: S S

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
long pending, served, statistic;

static void *worker(void *arg) {
  (void)arg;
  for (;;) {
    pthread_mutex_lock(&m);
    pending += 1;
    served += 1;
    pthread_mutex_unlock(&m);
    statistic += 1; // @S
    usleep(50);
  }
  return NULL;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, worker, NULL);
  pthread_create(&b, NULL, worker, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  return 0;
}
