/* Carril's Fig. 5.17 (issue 9): one race on x, between main's x++ before N
 * lock hand-offs and the worker's x++ after them. The observed run
 * alternates the critical sections strictly (main, worker, main, ...), so
 * each of the worker's reads of y saw main's previous write. Under
 * RVPredict's conservative rule the worker's loop branches depend on those
 * reads and freeze them: the worker cannot get past its loop before main
 * has run its sections, which come after main's x++ -- no sound predictor
 * could report the race. With precise dependences the loop condition
 * depends on the private counter only (no branch event at all), the reads
 * of y are free to change, and the race is predicted. run_e2e.py also
 * records with branch_deps=all and checks that it is then not predicted. */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>
// same-without-local-reduction
// expect-race: A B
// expect-location: x
// expect-none-with: branch_deps=all

#define N 1000
int x, y;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg) {
  (void)arg;
  for (int i = 0; i < N; i++) {
    testonly_take(1);
    pthread_mutex_lock(&m);
    y++;
    pthread_mutex_unlock(&m);
    testonly_give(0);
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
