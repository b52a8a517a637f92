/* The racy twin of norace_branch.c: the read of data does not depend on
 * the flag, so the model may move it before the write. */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>
// expect-race: A B

int data;
int flag;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *writer(void *arg) {
  (void)arg;
  data = 7; // @A
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
  int d = data; // @B
  printf("flag=%d data=%d\n", f, d);
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
