/* Message passing through a C11 atomic flag: the reader spins until the
 * flag is set, so its read of data depends on the flag's value. */
#include "testonly.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

int data;
atomic_int flag;

static void *writer(void *arg) {
  (void)arg;
  data = 99;
  atomic_store(&flag, 1);
  testonly_signal(); /* keeps the spin loop (and the trace) short */
  return NULL;
}

int main(void) {
  pthread_t t;
  testonly_init();
  pthread_create(&t, NULL, writer, NULL);
  testonly_wait();
  while (!atomic_load(&flag))
    ;
  printf("data=%d\n", data);
  pthread_join(t, NULL);
  return 0;
}
