/* Carril's Fig. 5.17 with a loop bound that the worker re-reads from shared
 * memory now and then (registered at -O2 only: at -O0 the bound lives in a
 * stack slot fed by reads, which falls back to the plain rule). The loop
 * branch then depends on the latest read of `limit` through a phi (a select
 * at -O2) that carries one read instance either way: the pass names it with
 * a parallel phi of read seqs (instrument/BranchDeps.cpp), so the branch
 * depends on the reads of `limit` only, never on the reads of y, and the
 * worker may run its whole loop before main's x++: the race is predicted.
 * Without seq phis the decision fell back to the plain rule, which freezes
 * every read of y as in the original figure (as branch_deps=all still
 * does: run_e2e.py checks that it then predicts nothing). */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>
// expect-race: A B
// expect-location: x
// expect-none-with: branch_deps=all

#define N 200
int x, y;
int limit = N;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg) {
  (void)arg;
  int n = limit;
  for (int i = 0; i < n; i++) {
    testonly_take(1);
    pthread_mutex_lock(&m);
    y++;
    pthread_mutex_unlock(&m);
    testonly_give(0);
    if ((i & 7) == 7)
      n = limit;
  }
  x++; // @B
  return NULL;
}

int main(void) {
  pthread_t t;
  testonly_init();
  pthread_create(&t, NULL, worker, NULL);
  x++; // @A
  for (int i = 0; i < N; i++) {
    pthread_mutex_lock(&m);
    y++;
    pthread_mutex_unlock(&m);
    testonly_give(1);
    testonly_take(0);
  }
  pthread_join(t, NULL);
  printf("x=%d y=%d\n", x, y);
  return 0;
}
