/* Analysis benchmark (issue 17): dining philosophers, each taking the fork
 * on its left and then the one on its right, ROUNDS meals each. Every
 * philosopher starts with the left fork, so all of them holding their left
 * fork at once is a deadlock the observed run did not hit.
 * Usage: philosophers N ROUNDS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXN 16

static pthread_mutex_t fork_[MAXN];
static long meals[MAXN];
static int n, rounds;

static void *philosopher(void *arg) {
  int i = (int)(long)arg;
  for (int r = 0; r < rounds; ++r) {
    pthread_mutex_lock(&fork_[i]);
    pthread_mutex_lock(&fork_[(i + 1) % n]);
    meals[i] += 1;
    pthread_mutex_unlock(&fork_[(i + 1) % n]);
    pthread_mutex_unlock(&fork_[i]);
  }
  return NULL;
}

int main(int argc, char **argv) {
  n = argc > 1 ? atoi(argv[1]) : 5;
  rounds = argc > 2 ? atoi(argv[2]) : 1000;
  if (n < 2 || n > MAXN || rounds < 1)
    return 2;
  pthread_t t[MAXN];
  for (int i = 0; i < n; ++i)
    pthread_mutex_init(&fork_[i], NULL);
  for (long i = 0; i < n; ++i)
    pthread_create(&t[i], NULL, philosopher, (void *)i);
  for (int i = 0; i < n; ++i)
    pthread_join(t[i], NULL);
  long total = 0;
  for (int i = 0; i < n; ++i)
    total += meals[i];
  printf("meals=%ld\n", total);
  return 0;
}
