/* Recording benchmark: an access-heavy kernel. Each of T threads does N
 * rounds over a shared array (read, compute, write back: plain accesses the
 * recorder must ticket and log) and every 64th round takes a mutex to bump a
 * shared total. Usage: shared_counters THREADS ROUNDS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define SLOTS 1024
static long slots[SLOTS];
static long total;
static long rounds;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *work(void *arg) {
  long id = (long)arg, local = 0;
  for (long r = 0; r < rounds; ++r) {
    long i = (r * 7 + id * 131) % SLOTS;
    long v = slots[i];
    slots[i] = v + r;
    local += v & 7;
    if ((r & 63) == 0) {
      pthread_mutex_lock(&m);
      total += local;
      pthread_mutex_unlock(&m);
      local = 0;
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 2;
  rounds = argc > 2 ? atol(argv[2]) : 1000000;
  pthread_t t[64];
  if (threads < 1 || threads > 64)
    return 2;
  for (long i = 0; i < threads; ++i)
    pthread_create(&t[i], NULL, work, (void *)i);
  for (int i = 0; i < threads; ++i)
    pthread_join(t[i], NULL);
  printf("total=%ld\n", total);
  return 0;
}
