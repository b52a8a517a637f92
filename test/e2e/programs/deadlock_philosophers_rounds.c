/* Five dining philosophers eating 400 meals each, every one taking the fork
 * on its left and then the one on its right. The recorded run never
 * deadlocks, but in another order all five hold their left fork and wait
 * for their right one; main's join of the first never returns. The lock
 * graph has one cycle, with 400^5 concrete instances: the analysis must
 * find a feasible one without enumerating them (issue 17 item 4). */
#include <pthread.h>
#include <stdio.h>
// expect-deadlock: t1@R t2@R t3@R t4@R t5@R t0@J
// expect-kind: lock-order

#define N 5
#define MEALS 400
pthread_mutex_t fork_[N];
long eaten[N];

static void *philosopher(void *arg) {
  int i = (int)(long)arg;
  for (int m = 0; m < MEALS; ++m) {
    pthread_mutex_lock(&fork_[i]);
    pthread_mutex_lock(&fork_[(i + 1) % N]); // @R
    eaten[i] += 1;
    pthread_mutex_unlock(&fork_[(i + 1) % N]);
    pthread_mutex_unlock(&fork_[i]);
  }
  return NULL;
}

int main(void) {
  pthread_t t[N];
  for (int i = 0; i < N; ++i)
    pthread_mutex_init(&fork_[i], NULL);
  for (long i = 0; i < N; ++i)
    pthread_create(&t[i], NULL, philosopher, (void *)i);
  pthread_join(t[0], NULL); // @J
  long total = 0;
  for (int i = 1; i < N; ++i)
    pthread_join(t[i], NULL);
  for (int i = 0; i < N; ++i)
    total += eaten[i];
  printf("meals=%ld\n", total);
  return 0;
}
