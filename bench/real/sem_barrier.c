/* Analysis benchmark (issue 17): a reusable barrier built from a mutex and
 * two semaphores (the two-turnstile barrier of the textbooks), used by a
 * few threads that publish a value per round and read their neighbour's
 * after the barrier. Each round also bumps an unprotected statistic (the
 * race to predict). Usage: sem_barrier THREADS ROUNDS */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXT 16

struct barrier {
  pthread_mutex_t m;
  sem_t in, out; /* the two turnstiles */
  int count, n;
};

static struct barrier bar;
static long slot[MAXT];
static long seen[MAXT];
static long rounds_done; /* unprotected: every thread bumps it */
static int nthreads, nrounds;

static void barrier_init(struct barrier *b, int n) {
  pthread_mutex_init(&b->m, NULL);
  sem_init(&b->in, 0, 0);
  sem_init(&b->out, 0, 0);
  b->count = 0;
  b->n = n;
}

/* Phase 1: the last arrival opens the first turnstile n times; phase 2:
 * the last departure opens the second one, so no thread laps the others. */
static void barrier_wait(struct barrier *b) {
  pthread_mutex_lock(&b->m);
  if (++b->count == b->n)
    for (int i = 0; i < b->n; ++i)
      sem_post(&b->in);
  pthread_mutex_unlock(&b->m);
  sem_wait(&b->in);
  pthread_mutex_lock(&b->m);
  if (--b->count == 0)
    for (int i = 0; i < b->n; ++i)
      sem_post(&b->out);
  pthread_mutex_unlock(&b->m);
  sem_wait(&b->out);
}

static void *worker(void *arg) {
  int id = (int)(long)arg;
  for (int r = 0; r < nrounds; ++r) {
    slot[id] = r * MAXT + id;
    barrier_wait(&bar);
    seen[id] += slot[(id + 1) % nthreads];
    rounds_done++;
    barrier_wait(&bar);
  }
  return NULL;
}

int main(int argc, char **argv) {
  nthreads = argc > 1 ? atoi(argv[1]) : 3;
  nrounds = argc > 2 ? atoi(argv[2]) : 4;
  if (nthreads < 2 || nthreads > MAXT || nrounds < 1)
    return 2;
  pthread_t t[MAXT];
  barrier_init(&bar, nthreads);
  for (long i = 0; i < nthreads; ++i)
    pthread_create(&t[i], NULL, worker, (void *)i);
  for (int i = 0; i < nthreads; ++i)
    pthread_join(t[i], NULL);
  long sum = 0;
  for (int i = 0; i < nthreads; ++i)
    sum += seen[i];
  printf("sum=%ld rounds=%ld\n", sum, rounds_done);
  return 0;
}
