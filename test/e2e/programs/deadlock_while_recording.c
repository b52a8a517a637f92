/* Two threads take locks a and b in opposite orders, and in the recorded
 * run they really deadlock: each takes its first lock, then tells the other
 * (a pipe the recorder does not see, testonly.h) and waits to be told, so
 * both hold one lock before either asks for the second. A run that hangs
 * like this used to hang `racepredict run` forever; the recorder's watchdog
 * sees every thread blocked for deadlock_ms, writes the trace with the
 * blocked threads and ends the program, and `run` reports the observed
 * deadlock: t1 waits for b at @B1 (held by t2), t2 for a at @A2 (held by
 * t1), main joins t1 at @J (run_limits.py). With argv[1] = "ordered" both
 * take a first: no deadlock, nothing reported. */
#include "testonly.h"
#include <pthread.h>
#include <string.h>

pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
int ordered;
long total;

static void *first(void *arg) {
  (void)arg;
  pthread_mutex_lock(&a);
  testonly_give(1);
  testonly_take(0);
  pthread_mutex_lock(&b); // @B1
  total += 1;
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  return NULL;
}

static void *second(void *arg) {
  (void)arg;
  if (ordered) {
    testonly_take(1);
    testonly_give(0);
  }
  pthread_mutex_t *one = ordered ? &a : &b, *two = ordered ? &b : &a;
  pthread_mutex_lock(one);
  if (!ordered) {
    testonly_take(1);
    testonly_give(0);
  }
  pthread_mutex_lock(two); // @A2
  total += 2;
  pthread_mutex_unlock(two);
  pthread_mutex_unlock(one);
  return NULL;
}

int main(int argc, char **argv) {
  ordered = argc > 1 && !strcmp(argv[1], "ordered");
  testonly_init();
  pthread_t t1, t2;
  pthread_create(&t1, NULL, first, NULL);
  pthread_create(&t2, NULL, second, NULL);
  pthread_join(t1, NULL); // @J
  pthread_join(t2, NULL);
  return total != 3;
}
