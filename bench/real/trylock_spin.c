/* Analysis benchmark (issue 17): busy-spinning try-lock loops. A stats
 * collector polls a table, taking its lock with a spin-then-sleep helper
 * (SPIN pthread_mutex_trylock calls, then a short sleep, again) — the
 * acquisition path of many hand-rolled locks — while a worker updates the
 * table in short sections, now and then sleeping inside one (a checkpoint)
 * or outside (waiting for input). Under the recorder the collector spins
 * while the worker sleeps in its section, every spin a failed-trylock
 * event, and polls while the worker waits: hundreds of thousands of events
 * with 3 threads. The worker's `dropped` counter, bumped without the lock
 * and read by the collector, is the one race.
 * Usage: trylock_spin ROUNDS SPIN */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define SLOTS 32

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static long table[SLOTS]; /* under table_lock */
static long progress;     /* under table_lock */
static int done;          /* under table_lock */
static long dropped;      /* the worker's, read by the collector: races */
static int spin;

/* Spin first (cheap when the holder is about to release), sleep when the
 * lock stays taken. */
static void lock_with_backoff(pthread_mutex_t *m) {
  for (;;) {
    for (int i = 0; i < spin; ++i)
      if (pthread_mutex_trylock(m) == 0)
        return;
    struct timespec pause = {0, 20000};
    nanosleep(&pause, NULL);
  }
}

static void *worker(void *arg) {
  long rounds = (long)arg;
  for (long r = 0; r < rounds; ++r) {
    pthread_mutex_lock(&table_lock);
    for (int i = 0; i < SLOTS; ++i)
      table[i] += r ^ i;
    if (r % 64 == 63) {
      // A slow step under the lock (a checkpoint of the table): the
      // collector's spins happen here.
      struct timespec io = {0, 200000};
      nanosleep(&io, NULL);
    }
    progress = r;
    pthread_mutex_unlock(&table_lock);
    if (r % 8 == 0)
      ++dropped;
    if (r % 64 == 31) {
      // Waiting for the next batch of input: the collector's turn.
      struct timespec wait = {0, 200000};
      nanosleep(&wait, NULL);
    }
  }
  pthread_mutex_lock(&table_lock);
  done = 1;
  pthread_mutex_unlock(&table_lock);
  return NULL;
}

static void *collector(void *arg) {
  long *snapshots = arg, seen = 0;
  for (;;) {
    lock_with_backoff(&table_lock);
    long sum = 0;
    for (int i = 0; i < SLOTS; ++i)
      sum += table[i];
    sum += progress;
    int finished = done;
    pthread_mutex_unlock(&table_lock);
    seen = dropped;
    ++*snapshots;
    if (finished || sum < 0)
      break;
  }
  return (void *)seen;
}

int main(int argc, char **argv) {
  long rounds = argc > 1 ? atol(argv[1]) : 1000;
  spin = argc > 2 ? atoi(argv[2]) : 100;
  if (rounds < 1 || spin < 1)
    return 2;
  long snapshots = 0;
  pthread_t w, c;
  pthread_create(&w, NULL, worker, (void *)rounds);
  pthread_create(&c, NULL, collector, &snapshots);
  pthread_join(w, NULL);
  void *seen;
  pthread_join(c, &seen);
  printf("snapshots=%ld dropped-seen=%ld\n", snapshots, (long)seen);
  return 0;
}
