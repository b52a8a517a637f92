/* A job table entry: the dispatcher builds the entry on its stack and
 * copies it into the shared slot in one struct assignment under the slot's
 * lock (the compiler copies it in 8-byte words); the monitor prints the
 * job's name with strlen without taking the lock. The copy writes the
 * name's bytes the monitor reads byte by byte. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
// expect-race: C L

struct job {
  int id;
  int priority;
  char name[24];
};

static struct job slot = {0, 0, "idle"};
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;

static void *dispatcher(void *arg) {
  struct job j;
  memset(&j, 0, sizeof j);
  j.id = *(int *)arg;
  j.priority = 3;
  snprintf(j.name, sizeof j.name, "compress-%d", j.id);
  pthread_mutex_lock(&slot_lock);
  slot = j; // @C
  pthread_mutex_unlock(&slot_lock);
  return NULL;
}

int main(void) {
  int id = 7;
  pthread_t t;
  pthread_create(&t, NULL, dispatcher, &id);
  size_t n = strlen(slot.name); // @L
  pthread_join(t, NULL);
  printf("%zu %s\n", n, slot.name);
  return 0;
}
