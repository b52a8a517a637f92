/* The deadlock-test shape of thread churn: N times (argv[1], default 1),
 * create two threads that take locks a and b in opposite orders, and join
 * them. In the recorded run nothing deadlocks; in the other order each
 * thread holds one lock and waits for the other, and main's join never
 * returns. run_churn.py records 20,000 pairs ("same": both threads take a
 * first, so that no run can deadlock) under a 1 GiB address-space limit:
 * the threads reuse the recorder state of ended ones (docs/recording.md,
 * "Thread churn"). */
#include <pthread.h>
#include <stdlib.h>
// expect-deadlock: t1@B1 t2@A2 t0@J1
// expect-kind: lock-order

pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
long total;

static void *forward(void *arg) {
  (void)arg;
  pthread_mutex_lock(&a);
  pthread_mutex_lock(&b); // @B1
  total += 1;
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  return NULL;
}

int same_order;

static void *backward(void *arg) {
  (void)arg;
  pthread_mutex_lock(same_order ? &a : &b);
  pthread_mutex_lock(same_order ? &b : &a); // @A2
  total -= 1;
  pthread_mutex_unlock(same_order ? &b : &a);
  pthread_mutex_unlock(same_order ? &a : &b);
  return NULL;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1;
  same_order = argc > 2;
  for (int i = 0; i < n; ++i) {
    pthread_t p, q;
    pthread_create(&p, NULL, forward, NULL);
    pthread_create(&q, NULL, backward, NULL);
    pthread_join(p, NULL); // @J1
    pthread_join(q, NULL);
  }
  return total != 0;
}
