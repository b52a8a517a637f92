/* The fixed twin of race_use_after_free.c: main joins the I/O thread
 * before it frees the session. The free is still a write of the whole
 * block, ordered after every access of the thread by the join. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct session {
  int id;
  long bytesIn;
  long bytesOut;
};

static void account(struct session *s, long n) { s->bytesIn += n; }

static void *io_thread(void *arg) {
  account(arg, 512);
  return NULL;
}

static void close_session(struct session *s) {
  printf("session %d closed after %ld bytes\n", s->id, s->bytesIn);
  free(s);
}

int main(void) {
  struct session *s = calloc(1, sizeof *s);
  s->id = 7;
  pthread_t t;
  pthread_create(&t, NULL, io_thread, s);
  pthread_join(t, NULL);
  close_session(s);
  return 0;
}
