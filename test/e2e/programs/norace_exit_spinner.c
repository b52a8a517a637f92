/* race_exit_spinner.c's twin: the job publishes its result under the lock
 * and the watcher peeks at it under the lock too. The same ending (exit()
 * from the job while the watcher spins on the lock); nothing races. */
#include <pthread.h>
#include <stdlib.h>
// The watcher would spin through the whole exit grace (exit_grace_ms), at
// full speed and holding the token: 50K-700K events of failed try-locks
// whose analysis took 0.5 s to over 2 min. What is checked here comes
// before exit(); run_endings.py records this shape with the grace.
// record-options: exit_grace_ms=0

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int state;      // under m
long result;    // under m
long last_seen; // the watcher's own

static void *watcher(void *arg) {
  (void)arg;
  for (;;) {
    while (pthread_mutex_trylock(&m))
      ;
    last_seen += state;
    last_seen += result;
    pthread_mutex_unlock(&m);
  }
  return NULL;
}

static void *job(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  state = 1;
  result = 42;
  state = 2;
  pthread_mutex_unlock(&m);
  for (long i = 0; i < 2000; ++i) {
    pthread_mutex_lock(&m);
    state = 2;
    pthread_mutex_unlock(&m);
  }
  exit(0);
}

int main(void) {
  pthread_t w, j;
  pthread_create(&w, NULL, watcher, NULL);
  pthread_create(&j, NULL, job, NULL);
  pthread_join(j, NULL);
  return 1;
}
