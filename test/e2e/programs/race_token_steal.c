/* A thread that holds the recording token and blocks in a call the runtime
 * does not see (stdio reading a pipe: glibc calls its internal read, not
 * the interposed read(2)) must not stall the others: the oldest waiter takes
 * the token from it once it is asleep in the kernel
 * (runtime/record/token.cpp). Each thread here blocks on such a read until
 * the other has recorded an access, so the run completes only if the token
 * can be taken; the pipe's order stays hidden from the trace and the race
 * on x is predicted. */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>
// expect-race: A B
// expect-location: x

int x;

static FILE *in[2], *out[2];
TESTONLY static void raw_open(void) {
  for (int ch = 0; ch < 2; ++ch) {
    in[ch] = fdopen(testonly_fds[ch][0], "r");
    out[ch] = fdopen(testonly_fds[ch][1], "w");
    if (!in[ch] || !out[ch])
      _exit(77);
  }
}
TESTONLY static void raw_give(int ch) {
  if (fputc(1, out[ch]) == EOF || fflush(out[ch]) != 0)
    _exit(77);
}
TESTONLY static void raw_take(int ch) {
  if (fgetc(in[ch]) == EOF)
    _exit(77);
}

static void *first(void *arg) {
  (void)arg;
  x = 1; // @A
  raw_give(0);
  raw_take(1); // asleep with the token until `second` has written x
  return NULL;
}

static void *second(void *arg) {
  (void)arg;
  raw_take(0); // asleep (maybe with the token) until `first` has written x
  x = 2;       // @B
  raw_give(1);
  return NULL;
}

int main(void) {
  pthread_t a, b;
  testonly_init();
  raw_open();
  pthread_create(&b, NULL, second, NULL);
  pthread_create(&a, NULL, first, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("x=%d\n", x);
  return 0;
}
