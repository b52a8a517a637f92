/* Thread exit cost (bench/RESULTS.md, "Thread end after key destructors"):
 * N create/join pairs whose threads lock, add and unlock; with "tsd", each
 * thread also keeps a value under a key with a destructor.
 *   thread_exit_tsd N [tsd] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long total;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t key;
static int use_tsd;

static void drop(void *p) { (void)p; }

static void *work(void *a) {
  if (use_tsd)
    pthread_setspecific(key, &total);
  pthread_mutex_lock(&m);
  total += (long)a;
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 500;
  use_tsd = argc > 2 && strcmp(argv[2], "tsd") == 0;
  pthread_key_create(&key, drop);
  for (long i = 0; i < n; i++) {
    pthread_t t;
    pthread_create(&t, NULL, work, (void *)i);
    pthread_join(t, NULL);
  }
  printf("%ld\n", total);
  return 0;
}
