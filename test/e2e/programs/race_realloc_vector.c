/* A growable vector: the producer appends under a lock (realloc moves the
 * array as it grows); the monitor samples the length without the lock
 * (TSan reports it). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
// expect-race: A B

struct vec {
  int *data;
  size_t len, cap;
};
static struct vec v;
static pthread_mutex_t vlock = PTHREAD_MUTEX_INITIALIZER;

static void push(int x) {
  pthread_mutex_lock(&vlock);
  if (v.len == v.cap) {
    v.cap = v.cap ? v.cap * 2 : 2;
    v.data = realloc(v.data, v.cap * sizeof *v.data);
  }
  v.data[v.len] = x;
  v.len++; // @A
  pthread_mutex_unlock(&vlock);
}

static void *producer(void *arg) {
  (void)arg;
  for (int i = 0; i < 10; i++)
    push(i);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, producer, NULL);
  size_t n = v.len; // @B
  pthread_join(t, NULL);
  printf("n=%zu last=%d\n", n, v.data[v.len - 1]);
  free(v.data);
  return 0;
}
