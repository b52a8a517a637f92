/* A condition wait that can miss its notify (a nested monitor): the waiter
 * holds lock l while it waits on cv, which releases only mtx, and the
 * notifier must take l before it notifies. In the observed run the
 * notifier used l before the waiter took it (testonly.h's pipes); if the
 * waiter takes l first, the notifier waits for l forever, so the notify
 * never comes, and main's join of the waiter never returns. */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>
// expect-deadlock: t1@W t2@L t0@J
// expect-kind: condition

pthread_mutex_t l = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
int ready, uses;

static void *waiter(void *arg) {
  (void)arg;
  testonly_wait(); /* the notifier has used l */
  pthread_mutex_lock(&l);
  pthread_mutex_lock(&mtx);
  testonly_give(1); /* about to wait: the notifier may go on */
  while (!ready)
    pthread_cond_wait(&cv, &mtx); // @W
  pthread_mutex_unlock(&mtx);
  uses += 1;
  pthread_mutex_unlock(&l);
  return NULL;
}

static void *notifier(void *arg) {
  (void)arg;
  pthread_mutex_lock(&l); // @L
  uses += 1;
  pthread_mutex_unlock(&l);
  testonly_signal();
  testonly_take(1);
  pthread_mutex_lock(&mtx);
  ready = 1;
  pthread_cond_signal(&cv);
  pthread_mutex_unlock(&mtx);
  return NULL;
}

int main(void) {
  pthread_t w, n;
  testonly_init();
  pthread_create(&w, NULL, waiter, NULL);
  pthread_create(&n, NULL, notifier, NULL);
  pthread_join(w, NULL); // @J
  pthread_join(n, NULL);
  printf("uses=%d\n", uses);
  return 0;
}
