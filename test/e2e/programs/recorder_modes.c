/* Ends in the way argv[1] says (return, exit from a thread, abort, SIGSEGV)
 * so that run_recorder.py can check the trace is complete in each case. */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

int x;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
const char *mode = "return";

static void *worker(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  x += 1;
  pthread_mutex_unlock(&m);
  if (!strcmp(mode, "exit"))
    exit(3);
  if (!strcmp(mode, "abort"))
    abort();
  if (!strcmp(mode, "segv"))
    raise(SIGSEGV);
  return NULL;
}

int main(int argc, char **argv) {
  pthread_t t;
  if (argc > 1)
    mode = argv[1];
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  pthread_mutex_lock(&m);
  x += 1;
  pthread_mutex_unlock(&m);
  return 0;
}
