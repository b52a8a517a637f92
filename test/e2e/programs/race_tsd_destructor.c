/* Per-thread counters in thread-specific data (pthread_key_create with a
 * destructor): each worker counts into its own buffer and the destructor,
 * which glibc runs after the start routine returns (after thread_local
 * destructors too), folds the count into a global total without a lock.
 * The two workers' destructors race; the thread's end must be recorded
 * after them, or their accesses are lost (TSan reports this race). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
// expect-race: A A

static pthread_key_t count_key;
static long total;

static void flush_count(void *p) {
  long *count = p;
  total += *count; // @A
  free(count);
}

static void *worker(void *arg) {
  long *count = malloc(sizeof *count);
  *count = 0;
  pthread_setspecific(count_key, count);
  for (long i = 0; i < (long)arg; i++) {
    long *c = pthread_getspecific(count_key);
    (*c)++;
  }
  return NULL;
}

int main(void) {
  pthread_t t[2];
  pthread_key_create(&count_key, flush_count);
  for (long i = 0; i < 2; i++)
    pthread_create(&t[i], NULL, worker, (void *)(i + 3));
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  printf("total=%ld\n", total);
  pthread_key_delete(count_key);
  return 0;
}
