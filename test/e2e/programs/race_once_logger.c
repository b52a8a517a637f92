/* A logger opened on first use (pthread_once) by whichever thread logs
 * first; main peeks at the line count before logging, without the lock.
 * ThreadSanitizer's pthread_create returns once the child has started, so
 * in its run the job opens the logger and main's peek races with that and
 * with the job's count. Recorded with the creator going on first, main
 * always opened the logger itself and the routine's writes were on a path
 * no trace contained. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
// expect-race: A P
// expect-race: C Q

struct logger {
  char prefix[16];
  int lines;
};
static struct logger *log_inst;
static struct logger log_storage;
static pthread_once_t log_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;

static void open_logger(void) {
  memset(&log_storage, 0, sizeof log_storage);
  log_inst = &log_storage; // @A
}

static void log_line(const char *what) {
  pthread_once(&log_once, open_logger);
  pthread_mutex_lock(&log_mu);
  log_inst->lines++; // @C
  pthread_mutex_unlock(&log_mu);
  (void)what;
}

static void *job(void *arg) {
  (void)arg;
  log_line("job started");
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, job, NULL);
  struct logger *l = log_inst; // @P
  if (l)
    printf("logger open, %d lines\n", l->lines); // @Q
  log_line("main");
  pthread_join(t, NULL);
  printf("lines=%d\n", log_inst->lines);
  return 0;
}
