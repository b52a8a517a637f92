/* Two threads qsort their halves of an array of records; the comparator,
 * called back from (uninstrumented) libc, counts comparisons through a
 * pointer every record carries to one shared counter (TSan reports it). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
// expect-race: A A

struct rec {
  int key;
  long *ncmp;
};
static long comparisons;

static int by_key(const void *a, const void *b) {
  const struct rec *x = a, *y = b;
  (*x->ncmp)++; // @A
  return (x->key > y->key) - (x->key < y->key);
}

struct half {
  struct rec *r;
  size_t n;
};

static void *sorter(void *arg) {
  struct half *h = arg;
  qsort(h->r, h->n, sizeof *h->r, by_key);
  return NULL;
}

int main(void) {
  struct rec recs[8];
  for (int i = 0; i < 8; i++) {
    recs[i].key = (i * 5) % 8;
    recs[i].ncmp = &comparisons;
  }
  struct half h[2] = {{recs, 4}, {recs + 4, 4}};
  pthread_t t[2];
  for (int i = 0; i < 2; i++)
    pthread_create(&t[i], NULL, sorter, &h[i]);
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  printf("comparisons=%ld first=%d\n", comparisons, recs[0].key);
  return 0;
}
