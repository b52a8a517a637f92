/* `data` is read only when the flag read under the lock is set, and the
 * flag is set after `data` was written: no feasible reordering lets the
 * read of data meet the write (the branch keeps it after the flag). */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>

int data;
int flag;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *writer(void *arg) {
  (void)arg;
  data = 7;
  pthread_mutex_lock(&m);
  flag = 1;
  pthread_mutex_unlock(&m);
  testonly_signal();
  return NULL;
}

static void *reader(void *arg) {
  (void)arg;
  testonly_wait();
  pthread_mutex_lock(&m);
  int f = flag;
  pthread_mutex_unlock(&m);
  if (f)
    printf("data=%d\n", data);
  return NULL;
}

int main(void) {
  pthread_t a, b;
  testonly_init();
  pthread_create(&a, NULL, writer, NULL);
  pthread_create(&b, NULL, reader, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  return 0;
}
