/* A use-after-free: main closes a session (frees it) while the I/O thread
 * may still be accounting bytes to it; nothing orders the two (main joins
 * the thread only afterwards). In the observed run the update comes first;
 * the free racing with it is predicted, reported with both stacks, and
 * replay runs the two back to back. */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
// expect-race: F U
// expect-stack: F close_session main
// expect-stack: U account io_thread

struct session {
  int id;
  long bytesIn;
  long bytesOut;
};

__attribute__((noinline)) static void account(struct session *s, long n) {
  s->bytesIn += n; // @U
}

static void *io_thread(void *arg) {
  account(arg, 512);
  testonly_signal();
  return NULL;
}

__attribute__((noinline)) static void close_session(struct session *s) {
  printf("session %d closed\n", s->id);
  free(s); // @F
}

int main(void) {
  testonly_init();
  struct session *s = calloc(1, sizeof *s);
  s->id = 7;
  pthread_t t;
  pthread_create(&t, NULL, io_thread, s);
  testonly_wait();
  close_session(s);
  pthread_join(t, NULL);
  return 0;
}
