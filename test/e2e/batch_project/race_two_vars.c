/* Two independent races in one test, in two different functions. */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>

int width, height;

static void set_width(int w) {
  width = w; // @W1
}

static void *resizer(void *arg) {
  (void)arg;
  testonly_wait();
  set_width(640);
  height = 480; // @H1
  return NULL;
}

int main(void) {
  pthread_t t;
  testonly_init();
  pthread_create(&t, NULL, resizer, NULL);
  width = 320;  // @W0
  height = 200; // @H0
  testonly_signal();
  pthread_join(t, NULL);
  printf("%dx%d\n", width, height);
  return 0;
}
