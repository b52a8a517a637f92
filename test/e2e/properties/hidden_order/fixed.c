/* The fix: the file is opened before the reader thread exists, so the
 * fork orders the open before every read; nothing is predicted. */
#include <pthread.h>

typedef struct {
  int is_open;
} file_t;

static file_t disk;

file_t *open_file(file_t *f) { return f; }
int read_file(file_t *f) { return f != 0; }
void close_file(file_t *f) { (void)f; }

static void *reader(void *arg) {
  (void)arg;
  read_file(&disk);
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
