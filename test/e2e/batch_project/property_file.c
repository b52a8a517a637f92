/* A custom property in batch (docs/properties.md): the reader thread may
 * read the file before main opens it. Every access is under the lock, so
 * there is no data race; the pipe orders the open first in the recorded
 * run (the recorder does not see it), so the violation is predicted, then
 * confirmed by replay. Built with --events property_file.spec; batch runs
 * with --property property_file.props. */
#include "testonly.h"
#include <pthread.h>

typedef struct {
  int is_open;
  char data;
} file_t;

static file_t disk = {0, 'x'};
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

file_t *open_file(file_t *f) {
  f->is_open = 1;
  return f;
}
int read_file(file_t *f) { return f->data + f->is_open; }

static void *reader(void *arg) {
  (void)arg;
  testonly_wait();
  pthread_mutex_lock(&m);
  read_file(&disk); // @R
  pthread_mutex_unlock(&m);
  return 0;
}

int main(void) {
  pthread_t t;
  testonly_init();
  pthread_create(&t, 0, reader, 0);
  pthread_mutex_lock(&m);
  open_file(&disk); // @O
  pthread_mutex_unlock(&m);
  testonly_signal();
  pthread_join(t, 0);
  return 0;
}
