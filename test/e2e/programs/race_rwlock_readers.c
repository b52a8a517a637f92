/* A lookup table under a reader-writer lock: lookups hold the read lock,
 * inserts the write lock, but every lookup also bumps a hit counter while
 * holding only the read lock. Read locks do not exclude each other: two
 * readers race on the counter (TSan reports it). */
#include <pthread.h>
#include <stdio.h>
// expect-race: A A

#define N 16
static pthread_rwlock_t table_lock = PTHREAD_RWLOCK_INITIALIZER;
static int table[N];
static long hits;

static int lookup(int k) {
  pthread_rwlock_rdlock(&table_lock);
  int v = table[k % N];
  hits++; // @A
  pthread_rwlock_unlock(&table_lock);
  return v;
}

static void insert(int k, int v) {
  pthread_rwlock_wrlock(&table_lock);
  table[k % N] = v;
  pthread_rwlock_unlock(&table_lock);
}

static void *reader(void *arg) {
  long sum = 0;
  for (int i = 0; i < 4; i++)
    sum += lookup((int)(long)arg + i);
  return (void *)sum;
}

int main(void) {
  pthread_t r[2];
  for (int i = 0; i < N; i++)
    insert(i, i * i);
  for (long i = 0; i < 2; i++)
    pthread_create(&r[i], NULL, reader, (void *)i);
  insert(3, 99);
  for (int i = 0; i < 2; i++)
    pthread_join(r[i], NULL);
  printf("hits=%ld\n", hits);
  return 0;
}
