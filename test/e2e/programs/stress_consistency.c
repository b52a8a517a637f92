/* Consistency under contention: four threads race on a few shared words
 * (plain, atomic, locked, memcpy'd), so any gap between an access and its
 * ticket would show up as a read that disagrees with the last write in the
 * trace. Checked with check-trace only (the analysis is not the point). */
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
  }
  return NULL;
}

int main(void) {
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; ++i)
    pthread_create(&t[i], NULL, worker, (void *)i);
  for (int i = 0; i < THREADS; ++i)
    pthread_join(t[i], NULL);
  printf("%ld %ld\n", (long)counter, locked);
  return 0;
}
