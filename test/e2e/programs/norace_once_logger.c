/* race_once_logger.c without the peek: main reads the count under the
 * lock after its own pthread_once, which orders it after the routine
 * whichever thread ran it. No race. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

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
  log_inst = &log_storage;
}

static void log_line(const char *what) {
  pthread_once(&log_once, open_logger);
  pthread_mutex_lock(&log_mu);
  log_inst->lines++;
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
  log_line("main");
  pthread_mutex_lock(&log_mu);
  int seen = log_inst->lines;
  pthread_mutex_unlock(&log_mu);
  pthread_join(t, NULL);
  printf("seen=%d lines=%d\n", seen, log_inst->lines);
  return 0;
}
