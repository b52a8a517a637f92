/* Carril 2017, Fig. 4.21: main hands a token to the worker through
 * semaphore s and waits for it to come back on the same semaphore. In the
 * observed run the worker took the token first (fixed with testonly.h's
 * pipe); if main's own sem_wait takes back its post, the worker waits
 * forever and main's join never returns. */
#include "testonly.h"
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
// expect-deadlock: t1@W t0@J
// expect-kind: semaphore

sem_t s;
int token;

static void *worker(void *arg) {
  (void)arg;
  sem_wait(&s); // @W
  token += 1;
  sem_post(&s);
  testonly_signal();
  return NULL;
}

int main(void) {
  pthread_t t;
  testonly_init();
  sem_init(&s, 0, 0);
  pthread_create(&t, NULL, worker, NULL);
  token = 1;
  sem_post(&s);
  testonly_wait(); /* the worker has taken the token and given it back */
  sem_wait(&s);
  pthread_join(t, NULL); // @J
  printf("token=%d\n", token);
  sem_destroy(&s);
  return 0;
}
