/* A request counter of a small server, in a source file whose name and
 * comments are Latin-1 (the byte 0xE9 for "é"): the worker counts its
 * request without the lock that protects the journal; main reads the count
 * after its own journal entry. The observed run orders them (testonly.h);
 * the maximal model swaps the two journal sections and predicts the race. */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>
// expect-race: A B

static long served; /* requêtes servies */
static char last_entry[32];
static pthread_mutex_t journal = PTHREAD_MUTEX_INITIALIZER;

static void log_entry(const char *who) {
  pthread_mutex_lock(&journal);
  snprintf(last_entry, sizeof last_entry, "%s", who);
  pthread_mutex_unlock(&journal);
}

static void *worker(void *arg) {
  (void)arg;
  served = served + 1; /* compté sans verrou */ // @A
  log_entry("worker");
  testonly_signal();
  return NULL;
}

int main(void) {
  pthread_t t;
  testonly_init();
  pthread_create(&t, NULL, worker, NULL);
  testonly_wait();
  log_entry("main");
  printf("served=%ld\n", served); /* lu après le journal */ // @B
  pthread_join(t, NULL);
  return 0;
}
