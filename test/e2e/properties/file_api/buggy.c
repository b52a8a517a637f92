/* File API, access before open (Carril 2017 §6): main opens the file that
 * the reader thread reads, but nothing orders the open before the read.
 * The observed run opens first (a test-only pipe the recorder does not
 * see); the read before the open is predicted.
 * (The thesis' program is not available; this is a small program of the
 * scenario it describes.)
 * expect-violation: file_protocol read */
#include <pthread.h>

#include "testonly.h"

typedef struct {
  char data[16];
  int is_open;
} file_t;

static file_t disk = {"hello", 0};

file_t *open_file(file_t *f) {
  f->is_open = 1;
  return f;
}
int read_file(file_t *f, char *out) {
  out[0] = f->data[0];
  return f->is_open;
}
void close_file(file_t *f) { f->is_open = 0; }

static void *reader(void *arg) {
  char c;
  (void)arg;
  testonly_wait();
  read_file(&disk, &c); // @read
  return 0;
}

int main(void) {
  pthread_t t;
  testonly_init();
  pthread_create(&t, 0, reader, 0);
  open_file(&disk); // @open
  testonly_signal();
  pthread_join(t, 0);
  close_file(&disk); // @close
  return 0;
}
