/* Consistency under contention: four threads race on a few shared words
 * (plain, atomic, locked, memcpy'd, and an unaligned word that straddles a
 * 64-byte line), meet at a barrier and hand a token over a condition
 * variable, so any flaw in the recorder's stripe protocol or in the reader's
 * merge (docs/recording.md) would show up as a read that disagrees with the
 * last write in the trace, or a lock or barrier out of order. Checked with
 * check-trace only (the analysis is not the point). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#define THREADS 4
#define ROUNDS 5000

long plain[2];
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

static void *worker(void *arg) {
  long id = (long)arg;
  long copy[4];
  for (long i = 0; i < ROUNDS; ++i) {
    plain[i & 1] = plain[(i + 1) & 1] + id;
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
