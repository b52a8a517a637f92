/* A violation the analysis predicts but replay cannot enforce: the reader
 * waits on a plain flag that main sets after opening the file, in helpers
 * the pass leaves uninstrumented (as code in an uninstrumented library
 * would be). The trace shows no order between the open and the read, so
 * the witness runs the read first — a schedule the hidden flag forbids.
 * Replay must end `diverged`, never `confirmed`.
 * expect-violation: file_protocol read
 * expect-replay: diverged */
#include "testonly.h"
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
  testonly_flag_wait();
  read_file(&disk); // @read
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, reader, 0);
  open_file(&disk);
  testonly_flag_set();
  pthread_join(t, 0);
  close_file(&disk);
  return 0;
}
