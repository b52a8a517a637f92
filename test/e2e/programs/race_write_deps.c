/* Issue 20, a TSan unit test's shape reduced: two increments of GLOB under
 * MU, then a flag handed over under QM/QC, then an unprotected store.
 *
 * The observed run has T1's section, then T2's (T2 slept first; here the
 * test-only pipe orders them, invisible to the recorder), then T3. In the
 * reordering where T2 takes MU first, T2's GLOB++ reads 0 instead of 1 and
 * writes 1 instead of 2 -- nothing branches on either value -- and
 * `ready = 1` stores a constant, so T3 still leaves its loop and its
 * `GLOB = 1` meets T1's GLOB++ unordered. With the write dependences the
 * pass records (`ready = 1` depends on no read) the race is predicted and
 * replay confirms it; under RVPredict's rule (write_deps=all) `ready = 1`
 * depends on T2's read of GLOB, which then must see T1's 1: no race.
 * The MU calls are checked as TSan's tests check them: a branch on
 * pthread_mutex_lock's result depends on no read (the issue saw the same
 * missed race with them). */
#include "testonly.h"
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
// same-without-local-reduction
// expect-race: A B
// expect-location: GLOB
// expect-none-with: write_deps=all

int GLOB;
static int ready;
static pthread_mutex_t MU = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t QM = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t QC = PTHREAD_COND_INITIALIZER;

static void *t1(void *arg) {
  (void)arg;
  assert(0 == pthread_mutex_lock(&MU));
  GLOB++; // @A
  assert(0 == pthread_mutex_unlock(&MU));
  testonly_signal();
  return NULL;
}

static void *t2(void *arg) {
  (void)arg;
  testonly_wait(); /* usleep(100ms) in the original */
  assert(0 == pthread_mutex_lock(&MU));
  GLOB++;
  assert(0 == pthread_mutex_unlock(&MU));
  pthread_mutex_lock(&QM);
  ready = 1;
  pthread_cond_signal(&QC);
  pthread_mutex_unlock(&QM);
  return NULL;
}

static void *t3(void *arg) {
  (void)arg;
  pthread_mutex_lock(&QM);
  while (!ready)
    pthread_cond_wait(&QC, &QM);
  pthread_mutex_unlock(&QM);
  GLOB = 1; // @B
  return NULL;
}

int main(void) {
  pthread_t a, b, c;
  testonly_init();
  pthread_create(&c, NULL, t3, NULL);
  pthread_create(&a, NULL, t1, NULL);
  pthread_create(&b, NULL, t2, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  pthread_join(c, NULL);
  printf("GLOB=%d\n", GLOB);
  return 0;
}
