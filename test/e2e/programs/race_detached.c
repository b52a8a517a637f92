/* Detached workers that main never joins: a server that hands each request
 * to a thread of its own and returns once it has dispatched them all. Each
 * worker bumps a shared statistic without a lock (the race between any two
 * of them) and records its result under the lock. Natively the workers
 * run while main dispatches; recorded, main used to keep the recording
 * token until it returned, and no worker recorded a single event. Now the
 * token moves on after a 1 ms time slice (or, with handoff_at_create=1, to
 * each new thread at its creation), and threads still waiting at exit get
 * exit_grace_ms to run (docs/recording.md, "The schedule"): the trace holds
 * every worker. */
#include <pthread.h>
// expect-race: S S
// record-options: exit_grace_ms=10000

#define WORKERS 4

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
long served;
long results[WORKERS];

static void *serve(void *arg) {
  long id = (long)arg;
  served++; // @S
  pthread_mutex_lock(&m);
  results[id] = id * 10;
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(void) {
  for (long i = 0; i < WORKERS; ++i) {
    pthread_t t;
    pthread_create(&t, NULL, serve, (void *)i);
    pthread_detach(t);
  }
  return 0;
}
