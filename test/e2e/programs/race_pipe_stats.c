/* A producer hands jobs to a consumer through a pipe and updates its
 * statistics between two jobs, without a lock. The consumer reads the
 * statistics after receiving the first job: only the first send orders it,
 * not the update after it. In the observed run the producer has sent both
 * jobs before the consumer reads anything, so a happens-before detector
 * that orders a read after every earlier write to the descriptor (as TSan
 * does) sees no race; the prediction orders the receive only after the
 * send of the bytes it returned. */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
// expect-race: W R

struct job {
  int id;
  int size;
};
static int jobs[2];
static struct job table[2];
static long producedBytes;

static void *producer(void *arg) {
  (void)arg;
  for (int i = 0; i < 2; ++i) {
    table[i].id = i + 1;
    table[i].size = 100 * (i + 1);
    if (write(jobs[1], &i, sizeof i) != sizeof i)
      return NULL;
    producedBytes += table[i].size; // @W
  }
  testonly_signal();
  return NULL;
}

static void *consumer(void *arg) {
  (void)arg;
  testonly_wait();
  int i;
  if (read(jobs[0], &i, sizeof i) != sizeof i)
    return NULL;
  printf("job %d of %d bytes, %ld produced\n", table[i].id, table[i].size,
         producedBytes); // @R
  return NULL;
}

int main(void) {
  testonly_init();
  if (pipe(jobs) != 0)
    return 1;
  pthread_t p, c;
  pthread_create(&p, NULL, producer, NULL);
  pthread_create(&c, NULL, consumer, NULL);
  pthread_join(p, NULL);
  pthread_join(c, NULL);
  return 0;
}
