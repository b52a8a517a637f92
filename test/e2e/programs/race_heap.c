/* A heap block shared through a pointer published before the threads
 * start; the two threads update one field without a lock. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
// same-without-local-reduction
// expect-race: A A

struct stats {
  long count;
  long other;
};
struct stats *shared;

static void *worker(void *arg) {
  (void)arg;
  shared->count += 1; // @A
  return NULL;
}

int main(void) {
  pthread_t t[2];
  shared = malloc(sizeof *shared);
  memset(shared, 0, sizeof *shared);
  for (int i = 0; i < 2; ++i)
    pthread_create(&t[i], NULL, worker, NULL);
  for (int i = 0; i < 2; ++i)
    pthread_join(t[i], NULL);
  printf("%ld\n", shared->count);
  free(shared);
  return 0;
}
