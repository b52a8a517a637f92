/* Three dining philosophers, each taking the fork on its left and then the
 * one on its right. The observed run lets them eat one after the other
 * (testonly.h's pipe); if each takes its left fork first, all three wait
 * for their right fork forever, and main's join of the first never
 * returns. */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>
// expect-deadlock: t1@R t2@R t3@R t0@J
// expect-kind: lock-order

#define N 3
pthread_mutex_t fork_[N];
int meals[N];

static void *philosopher(void *arg) {
  int i = (int)(long)arg;
  if (i > 0)
    testonly_take(i - 1); /* the previous philosopher has eaten */
  pthread_mutex_lock(&fork_[i]);
  pthread_mutex_lock(&fork_[(i + 1) % N]); // @R
  meals[i] += 1;
  pthread_mutex_unlock(&fork_[(i + 1) % N]);
  pthread_mutex_unlock(&fork_[i]);
  if (i < N - 1)
    testonly_give(i); /* one channel per hand-off: the next one, not any */
  return NULL;
}

int main(void) {
  pthread_t t[N];
  testonly_init();
  for (int i = 0; i < N; ++i)
    pthread_mutex_init(&fork_[i], NULL);
  for (long i = 0; i < N; ++i)
    pthread_create(&t[i], NULL, philosopher, (void *)i);
  pthread_join(t[0], NULL); // @J
  for (int i = 1; i < N; ++i)
    pthread_join(t[i], NULL);
  printf("meals=%d %d %d\n", meals[0], meals[1], meals[2]);
  return 0;
}
