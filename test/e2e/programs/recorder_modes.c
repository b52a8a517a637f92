/* Ends in the way argv[1] says (return, exit from a thread, abort, SIGSEGV)
 * so that run_recorder.py can check the trace is complete in each case.
 * `longjmp`: the worker faults inside the recorder's load hook (a load
 * through a bad pointer) and its SIGSEGV handler jumps out of the hook:
 * the thread keeps the recording token forever, and main must still
 * finish (the recorder gives up after stuck_hook_ms and writes the trace). */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

int x;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
const char *mode = "return";
int *volatile bad = (int *)16;
static sigjmp_buf recover;

static void onSegv(int sig) {
  (void)sig;
  siglongjmp(recover, 1);
}

static void faultInsideAHook(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = onSegv;
  sigaction(SIGSEGV, &sa, NULL);
  if (sigsetjmp(recover, 1) == 0)
    x += *bad;
}

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
  if (!strcmp(mode, "longjmp"))
    faultInsideAHook();
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
