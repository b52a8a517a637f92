/* Recording benchmark: the string functions. Each of T threads, ROUNDS
 * times, formats a job's status line, copies it into its slot of a shared
 * table under a mutex (strcpy) and looks up the slot of another job by name
 * (strcmp, strlen, strchr): every byte they read or write is recorded, one
 * event each with a branch after the byte that decides whether the call
 * reads on (docs/recording.md). Usage: status_strings THREADS ROUNDS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 64
static char table[SLOTS][40];
static long rounds;
static long found;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *work(void *arg) {
  long id = (long)arg, hits = 0;
  char line[40], want[40];
  for (long r = 0; r < rounds; ++r) {
    snprintf(line, sizeof line, "job-%ld/%ld: step %ld", id, r % SLOTS, r);
    snprintf(want, sizeof want, "job-%ld/%ld:", id, (r + 7) % SLOTS);
    pthread_mutex_lock(&m);
    strcpy(table[r % SLOTS], line);
    const char *slot = table[(r + 7) % SLOTS];
    size_t n = strlen(want);
    if (strncmp(slot, want, n) == 0 && strchr(slot, ':'))
      hits += (long)strlen(slot);
    else if (strcmp(slot, line) < 0)
      hits += 1;
    pthread_mutex_unlock(&m);
  }
  pthread_mutex_lock(&m);
  found += hits;
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 2;
  rounds = argc > 2 ? atol(argv[2]) : 1000;
  if (threads < 1 || threads > 64)
    return 2;
  pthread_t t[64];
  for (long i = 0; i < threads; ++i)
    pthread_create(&t[i], NULL, work, (void *)i);
  for (int i = 0; i < threads; ++i)
    pthread_join(t[i], NULL);
  printf("%ld\n", found);
  return 0;
}
