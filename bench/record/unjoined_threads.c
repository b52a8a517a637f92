/* Schedule benchmark: threads that are never joined. Usage:
 *   unjoined_threads dispatch N   main hands N requests to detached threads
 *                                 and returns once it has dispatched them
 *   unjoined_threads pool N       N workers loop on a locked queue; main
 *                                 queues 4N items and returns
 * Each thread writes started[i] first thing (run_threads_bench.py counts the
 * threads whose write is in the trace), then works; at exit the program
 * prints how many had started (the native count). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX 256
long started[MAX];
long work[MAX];
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t ready = PTHREAD_COND_INITIALIZER;
long queued, taken;

static void count(void) {
  int n = 0;
  for (int i = 0; i < MAX; ++i)
    n += started[i] != 0;
  fprintf(stderr, "started %d\n", n);
}

static void *request(void *arg) {
  long id = (long)arg;
  started[id] = 1;
  for (long k = 0; k < 1000; ++k)
    work[id] += k * id;
  return NULL;
}

static void *worker(void *arg) {
  long id = (long)arg;
  started[id] = 1;
  for (;;) {
    pthread_mutex_lock(&m);
    while (taken == queued)
      pthread_cond_wait(&ready, &m);
    long item = taken++;
    pthread_mutex_unlock(&m);
    for (long k = 0; k < 1000; ++k)
      work[id] += k * item;
  }
  return NULL;
}

int main(int argc, char **argv) {
  int pool = argc > 1 && !strcmp(argv[1], "pool");
  long n = argc > 2 ? atol(argv[2]) : 16;
  if (n > MAX)
    n = MAX;
  atexit(count);
  for (long i = 0; i < n; ++i) {
    pthread_t t;
    pthread_create(&t, NULL, pool ? worker : request, (void *)i);
    pthread_detach(t);
  }
  if (pool)
    for (long i = 0; i < 4 * n; ++i) {
      pthread_mutex_lock(&m);
      ++queued;
      pthread_cond_signal(&ready);
      pthread_mutex_unlock(&m);
    }
  return 0;
}
