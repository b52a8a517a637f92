/* A mailbox a worker delivers into under its lock (the sender's name with
 * strcpy, the message with a memcpy of its length), peeked at by main
 * without the lock. Built with _FORTIFY_SOURCE at -O2 the copies into the
 * fixed-size fields become __strcpy_chk and __memcpy_chk. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
// cflags: -D_FORTIFY_SOURCE=2 -Wno-cpp
// expect-race: F P
// expect-race: B T

struct mailbox {
  char from[16];
  char body[48];
  size_t len;
};
static struct mailbox box;
static pthread_mutex_t box_lock = PTHREAD_MUTEX_INITIALIZER;

static void deliver(const char *from, const char *body, size_t len) {
  pthread_mutex_lock(&box_lock);
  strcpy(box.from, from);      // @F
  memcpy(box.body, body, len); // @B
  box.len = len;
  pthread_mutex_unlock(&box_lock);
}

static void *worker(void *arg) {
  char name[16], msg[48];
  int id = *(int *)arg;
  snprintf(name, sizeof name, "worker-%d", id);
  int n = snprintf(msg, sizeof msg, "hello %d", id);
  deliver(name, msg, (size_t)n + 1);
  return NULL;
}

int main(void) {
  int id = 7;
  pthread_t t;
  pthread_create(&t, NULL, worker, &id);
  char who[16], text[48];
  strcpy(who, box.from);               // @P
  memcpy(text, box.body, sizeof text); // @T
  pthread_join(t, NULL);
  printf("%s: %s\n", who[0] ? who : "nobody", text[0] ? text : "-");
  return 0;
}
