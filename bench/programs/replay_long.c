/* replay_long.c - A long witness for measuring replay speed: two threads
 * each do ITERS lock-protected increments, then race on `flag` (written
 * by one after its loop, read by the other after its loop). The witness
 * of that race contains (almost) every event of both loops, so the replay
 * enforces a schedule of ~6 * ITERS steps. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long counter;
static int flag;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long iters = 1000;

static void *work(void *arg) {
  for (long i = 0; i < iters; ++i) {
    pthread_mutex_lock(&m);
    counter++;
    pthread_mutex_unlock(&m);
  }
  if (arg)
    flag = 1;
  else
    printf("flag=%d\n", flag);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1)
    iters = atol(argv[1]);
  pthread_t a, b;
  pthread_create(&a, NULL, work, (void *)1);
  pthread_create(&b, NULL, work, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("counter=%ld\n", counter);
  return 0;
}
