/* Recording benchmark: descriptor hand-offs. A client and a server thread
 * exchange ROUNDS requests and replies through two pipes; each side updates
 * a shared counter the other reads after the hand-off (ordered by the pipe
 * only). Usage: pipe_pingpong ROUNDS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int requests[2], replies[2];
static long served, checked;

static void *server(void *arg) {
  long rounds = (long)arg;
  for (long i = 0; i < rounds; ++i) {
    long v;
    if (read(requests[0], &v, sizeof v) != sizeof v)
      exit(1);
    served += v;
    if (write(replies[1], &v, sizeof v) != sizeof v)
      exit(1);
  }
  return NULL;
}

int main(int argc, char **argv) {
  long rounds = argc > 1 ? atol(argv[1]) : 10000;
  if (pipe(requests) || pipe(replies))
    return 1;
  pthread_t t;
  pthread_create(&t, NULL, server, (void *)rounds);
  for (long i = 0; i < rounds; ++i) {
    long v = i;
    if (write(requests[1], &v, sizeof v) != sizeof v ||
        read(replies[0], &v, sizeof v) != sizeof v)
      return 1;
    checked = served;
  }
  pthread_join(t, NULL);
  printf("%ld %ld\n", served, checked);
  return 0;
}
