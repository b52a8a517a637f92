/* exit() from one thread while another loops on a lock: a job runner whose
 * watcher thread polls the job's state under a lock forever (spinning on
 * pthread_mutex_trylock when it is taken) and peeks at the result without
 * it, while the job thread finishes, publishes its result without the lock
 * (the race) and calls exit() itself. This shape used to give a
 * trace the reader rejected (`two events have seq N`: a thread got the
 * token as recording stopped and numbered its events from a stale seq);
 * run_endings.py hammers it, this test checks the finding. */
#include <pthread.h>
#include <stdlib.h>
// The watcher would spin through the whole exit grace (exit_grace_ms), at
// full speed and holding the token: 50K-700K events of failed try-locks
// whose analysis took 0.5 s to over 2 min. What is checked here comes
// before exit(); run_endings.py records this shape with the grace.
// The job starts once the watcher has looked at the state (a runner that
// waits for its watcher): without the grace, a watcher that the loaded
// machine had not yet run when the job called exit() left no event at all.
// It winds down once the watcher has been round its loop once more, so
// that the watcher's peek at the result (P) is recorded: a watcher starved
// right after its first unlock left the job's write nothing to race with.
// record-options: exit_grace_ms=0
// expect-race: R P

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int state;      // under m
int watching;   // under m: the watcher's rounds so far
long result;    // written without m: the race
long last_seen; // the watcher's own

static void *watcher(void *arg) {
  (void)arg;
  for (;;) {
    while (pthread_mutex_trylock(&m))
      ;
    ++watching;
    last_seen += state;
    pthread_mutex_unlock(&m);
    last_seen += result; // @P
  }
  return NULL;
}

static void *job(void *arg) {
  (void)arg;
  for (int started = 0; !started;) {
    pthread_mutex_lock(&m);
    started = watching;
    pthread_mutex_unlock(&m);
  }
  pthread_mutex_lock(&m);
  state = 1;
  pthread_mutex_unlock(&m);
  result = 42; // @R
  for (int rounds = 0; rounds < 2;) {
    pthread_mutex_lock(&m);
    rounds = watching;
    pthread_mutex_unlock(&m);
  }
  pthread_mutex_lock(&m);
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
