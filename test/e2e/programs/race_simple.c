/* Two unsynchronised writes of a global: the textbook race. */
#include <pthread.h>
#include <stdio.h>
// expect-race: A B

int x;

static void *worker(void *arg) {
  (void)arg;
  x = 1; // @A
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  x = 2; // @B
  pthread_join(t, NULL);
  printf("x=%d\n", x);
  return 0;
}
