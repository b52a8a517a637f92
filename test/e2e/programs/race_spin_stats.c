/* Per-packet statistics under a spin lock; the error path of one receive
 * queue counts the drop without taking it, and the reporter reads the
 * drop count under the lock. */
#include <pthread.h>
#include <stdio.h>
// expect-race: A B

static pthread_spinlock_t stats_lock;
static unsigned long packets, bytes, drops;

static void account(int len) {
  if (len <= 0) {
    drops++; // @A
    return;
  }
  pthread_spin_lock(&stats_lock);
  packets++;
  bytes += (unsigned long)len;
  pthread_spin_unlock(&stats_lock);
}

static void *rx(void *arg) {
  int queue = (int)(long)arg;
  for (int i = 0; i < 8; i++)
    account(queue == 1 && i == 5 ? -1 : 64 + i * 100);
  return NULL;
}

int main(void) {
  pthread_t t[2];
  pthread_spin_init(&stats_lock, PTHREAD_PROCESS_PRIVATE);
  for (long i = 0; i < 2; i++)
    pthread_create(&t[i], NULL, rx, (void *)i);
  pthread_spin_lock(&stats_lock);
  unsigned long d = drops; // @B
  pthread_spin_unlock(&stats_lock);
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  printf("packets=%lu bytes=%lu drops=%lu early=%lu\n", packets, bytes, drops,
         d);
  pthread_spin_destroy(&stats_lock);
  return 0;
}
