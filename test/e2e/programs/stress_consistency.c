/* Consistency under contention: four threads race on a few shared words
 * (plain 8- and 2-byte, atomic, locked, memcpy'd, and an unaligned word
 * that straddles a 64-byte line), contend with try-locks and timed locks on a
 * mutex others block on, meet at a barrier, hand a turn over a condition
 * variable, and one of them writes a shared word from uninstrumented code. Any
 * flaw in the recorder's token protocol (a try-lock recorded as failed while
 * the trace shows the lock free, an acquisition recorded out of order) or in
 * the reader's renaming after hidden writes (docs/recording.md) would show
 * up as a read that disagrees with the last write in the trace, or a lock or
 * barrier out of order. Checked with check-trace only (the analysis is not
 * the point). */
#include "testonly.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define THREADS 4
#define ROUNDS 5000

long plain[2];
short halves[2]; // 2-byte accesses: records with an explicit size
atomic_long counter;
long locked;
long block[4];
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
pthread_barrier_t b;
long turn; // whose turn the token is (under m)
/* A long at offset 60 of a 64-byte aligned buffer spans two lines. */
struct __attribute__((packed)) straddle {
  char pad[60];
  long word;
};
struct straddle across __attribute__((aligned(64)));

/* A write the recorder cannot see: the reader must rename plain[1] after
 * it, or the next recorded read of it would disagree with the trace. */
TESTONLY static void hidden_write(long v) { *(volatile long *)&plain[1] = v; }

/* Try-locks and a timed lock on m, which other threads hold and block on:
 * a failure must be recorded only where the trace shows m held. Holding m
 * across a sleep (which hands the recording token on) makes others block
 * in the real lock and own m before they can record it. */
static void try_locks(long id) {
  if ((id & 1) == 0) {
    pthread_mutex_lock(&m);
    usleep(20);
    locked += id;
    pthread_mutex_unlock(&m);
  }
  if (pthread_mutex_trylock(&m) == 0) {
    locked += id;
    pthread_mutex_unlock(&m);
  }
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  t.tv_nsec += 1000;
  if (t.tv_nsec >= 1000000000L)
    t.tv_nsec -= 1000000000L, ++t.tv_sec;
  if (pthread_mutex_timedlock(&m, &t) == 0) {
    locked -= id;
    pthread_mutex_unlock(&m);
  }
}

static void *worker(void *arg) {
  long id = (long)arg;
  long copy[4];
  for (long i = 0; i < ROUNDS; ++i) {
    plain[i & 1] = plain[(i + 1) & 1] + id;
    halves[i & 1] = (short)(halves[(i + 1) & 1] + id);
    atomic_fetch_add(&counter, 1);
    if ((i & 7) == 0) {
      pthread_mutex_lock(&m);
      locked += plain[0];
      pthread_mutex_unlock(&m);
    }
    if ((i & 15) == 0) {
      memcpy(copy, block, sizeof copy);
      copy[id] = i;
      memcpy(block, copy, sizeof block);
    }
    across.word = across.word + id;
    if ((i & 31) == 0)
      try_locks(id);
    if (id == 1 && (i & 255) == 0)
      hidden_write(1000000 + i);
    if ((i & 1023) == 0)
      pthread_barrier_wait(&b);
    if ((i & 511) == 0) { // pass the token around once
      pthread_mutex_lock(&m);
      while (turn % THREADS != id)
        pthread_cond_wait(&c, &m);
      ++turn;
      pthread_cond_broadcast(&c);
      pthread_mutex_unlock(&m);
    }
  }
  return NULL;
}

int main(void) {
  pthread_t t[THREADS];
  pthread_barrier_init(&b, NULL, THREADS);
  for (long i = 0; i < THREADS; ++i)
    pthread_create(&t[i], NULL, worker, (void *)i);
  for (int i = 0; i < THREADS; ++i)
    pthread_join(t[i], NULL);
  printf("%ld %ld\n", (long)counter, locked);
  return 0;
}
