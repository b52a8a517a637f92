/* A worker names the job it picked up: it formats the name into a local
 * buffer and strcpy's it into the shared job record after dropping the
 * lock; the monitor takes a strncpy snapshot of the name without the lock
 * (TSan intercepts both and reports the pair). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
// expect-race: A B

struct job {
  pthread_mutex_t lock;
  int state;
  char name[32];
};
static struct job job = {PTHREAD_MUTEX_INITIALIZER, 0, "none"};

static void *worker(void *arg) {
  char name[32];
  snprintf(name, sizeof name, "job-%d", (int)(long)arg);
  pthread_mutex_lock(&job.lock);
  job.state = 1;
  pthread_mutex_unlock(&job.lock);
  strcpy(job.name, name); // @A
  return NULL;
}

int main(void) {
  pthread_t t;
  char snap[32];
  pthread_create(&t, NULL, worker, (void *)7L);
  strncpy(snap, job.name, sizeof snap - 1); // @B
  snap[sizeof snap - 1] = 0;
  pthread_join(t, NULL);
  printf("%s -> %s\n", snap, job.name);
  return 0;
}
