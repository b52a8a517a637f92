/* File API, fixed: main opens the file before it creates the reader and
 * closes it after joining it, so every read is between open and close. */
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
  read_file(&disk, &c);
  return 0;
}

int main(void) {
  pthread_t t;
  open_file(&disk);
  pthread_create(&t, 0, reader, 0);
  pthread_join(t, 0);
  close_file(&disk);
  return 0;
}
