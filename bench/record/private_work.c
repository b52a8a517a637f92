/* Recording benchmark: threads that work on their own data. Each of T
 * threads fills and sums its own heap array (plain accesses to memory no
 * other thread touches) and adds its result to a total under a mutex once.
 * TSan runs the threads in parallel; the recorder lets one thread record at
 * a time (docs/recording.md), so this is where its wall time pays for the
 * cheaper CPU time. Usage: private_work THREADS ROUNDS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define WORDS 4096
static long total;
static long rounds;
static long *arrays[64]; // published, so the compiler keeps every access
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *work(void *arg) {
  long id = (long)arg, sum = id;
  long *a = malloc(WORDS * sizeof *a);
  if (!a)
    return NULL;
  arrays[id] = a;
  for (long r = 0; r < rounds; ++r)
    for (long i = 0; i < WORDS; i += 8) {
      a[i] = sum + i;
      sum += a[(i * 5 + r) % WORDS];
    }
  pthread_mutex_lock(&m);
  total += sum;
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 2;
  rounds = argc > 2 ? atol(argv[2]) : 1000;
  pthread_t t[64];
  if (threads < 1 || threads > 64)
    return 2;
  for (long i = 0; i < threads; ++i)
    pthread_create(&t[i], NULL, work, (void *)i);
  for (int i = 0; i < threads; ++i)
    pthread_join(t[i], NULL);
  printf("total=%ld\n", total);
  for (int i = 0; i < threads; ++i)
    free(arrays[i]);
  return 0;
}
