/* A status line shared between threads: the updater formats it into a
 * local buffer and memcpy's it in under a lock; the reporter memcpy's it
 * out without the lock (TSan reports the two memcpy's). Replay must gate
 * every chunk of a range copy: the witness ends at the first racing chunk,
 * with the other thread's step right after it. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
// expect-race: A C

static pthread_mutex_t status_lock = PTHREAD_MUTEX_INITIALIZER;
static char status[64];

static void set_status(const char *what, int block) {
  char line[64];
  memset(line, 0, sizeof line);
  snprintf(line, sizeof line, "%s block %d", what, block);
  pthread_mutex_lock(&status_lock);
  memcpy(status, line, sizeof status); // @A
  pthread_mutex_unlock(&status_lock);
}

static void *updater(void *arg) {
  (void)arg;
  set_status("compressing", 7);
  return NULL;
}

int main(void) {
  pthread_t t;
  char snap[64];
  set_status("idle", 0);
  pthread_create(&t, NULL, updater, NULL);
  memcpy(snap, status, sizeof snap); // @C
  pthread_join(t, NULL);
  printf("%s / %s\n", snap, status);
  return 0;
}
