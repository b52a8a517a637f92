/* Recording benchmark: a producer/consumer pipeline. The producer fills a
 * bounded queue (mutex + two condition variables); consumers hash each item
 * in private memory (not instrumented: non-escaping locals) and add the
 * result to a shared histogram under a lock. Usage: work_queue CONSUMERS
 * ITEMS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define CAP 64
static long queue[CAP];
static int head, tail, count, done;
static long histogram[16];
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t notEmpty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t notFull = PTHREAD_COND_INITIALIZER;

static unsigned long hashItem(long item) {
  unsigned long h = 1469598103934665603ul;
  for (int k = 0; k < 200; ++k)
    h = (h ^ (unsigned long)(item + k)) * 1099511628211ul;
  return h;
}

static void *consumer(void *arg) {
  (void)arg;
  for (;;) {
    pthread_mutex_lock(&m);
    while (count == 0 && !done)
      pthread_cond_wait(&notEmpty, &m);
    if (count == 0 && done) {
      pthread_mutex_unlock(&m);
      return NULL;
    }
    long item = queue[head];
    head = (head + 1) % CAP;
    --count;
    pthread_cond_signal(&notFull);
    pthread_mutex_unlock(&m);
    unsigned long h = hashItem(item);
    pthread_mutex_lock(&m);
    ++histogram[h & 15];
    pthread_mutex_unlock(&m);
  }
}

int main(int argc, char **argv) {
  int consumers = argc > 1 ? atoi(argv[1]) : 2;
  long items = argc > 2 ? atol(argv[2]) : 100000;
  pthread_t t[64];
  if (consumers < 1 || consumers > 64)
    return 2;
  for (int i = 0; i < consumers; ++i)
    pthread_create(&t[i], NULL, consumer, NULL);
  for (long i = 0; i < items; ++i) {
    pthread_mutex_lock(&m);
    while (count == CAP)
      pthread_cond_wait(&notFull, &m);
    queue[tail] = i;
    tail = (tail + 1) % CAP;
    ++count;
    pthread_cond_signal(&notEmpty);
    pthread_mutex_unlock(&m);
  }
  pthread_mutex_lock(&m);
  done = 1;
  pthread_cond_broadcast(&notEmpty);
  pthread_mutex_unlock(&m);
  for (int i = 0; i < consumers; ++i)
    pthread_join(t[i], NULL);
  long sum = 0;
  for (int i = 0; i < 16; ++i)
    sum += histogram[i];
  printf("items=%ld\n", sum);
  return 0;
}
