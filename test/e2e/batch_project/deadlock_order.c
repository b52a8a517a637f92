/* Lock-order inversion that did not deadlock in the recorded run: the
 * pipe makes the second thread wait until the first released both locks. */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>

pthread_mutex_t accounts = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t journal = PTHREAD_MUTEX_INITIALIZER;
int balance, entries;

static void *audit(void *arg) {
  (void)arg;
  testonly_wait();
  pthread_mutex_lock(&journal);  // @J1
  pthread_mutex_lock(&accounts); // @A1
  entries = entries + balance;
  pthread_mutex_unlock(&accounts);
  pthread_mutex_unlock(&journal);
  return NULL;
}

int main(void) {
  pthread_t t;
  testonly_init();
  pthread_create(&t, NULL, audit, NULL);
  pthread_mutex_lock(&accounts); // @A0
  pthread_mutex_lock(&journal);  // @J0
  balance = 100;
  entries = entries + 1;
  pthread_mutex_unlock(&journal);
  pthread_mutex_unlock(&accounts);
  testonly_signal();
  pthread_join(t, NULL);
  printf("%d %d\n", balance, entries);
  return 0;
}
