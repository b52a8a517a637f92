/* Logging through varargs wrappers, as C services write it: set_status()
 * formats the status line with vsnprintf, log_msg() prints with vfprintf.
 * A worker sets the status while a monitor logs it, without a lock: the
 * log's read of the line (its %s argument, found in the va_list by the
 * format at run time) races with the formatting. ThreadSanitizer's
 * vsnprintf and vfprintf interceptors see both; so does the recorder
 * (stdio_hooks.cpp). */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
// expect-race: W L

char status[40] = "idle";

static void set_status(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(status, sizeof status, fmt, ap); // @W
  va_end(ap);
}

static void log_msg(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stdout, fmt, ap); // @L
  va_end(ap);
}

static void *worker(void *arg) {
  (void)arg;
  for (int phase = 1; phase <= 2; ++phase)
    set_status("phase %d (%s)", phase, phase == 1 ? "load" : "run");
  return NULL;
}

static void *monitor(void *arg) {
  (void)arg;
  log_msg("[%5.1f%%] %-*s|%s\n", 12.5, 6, "mon", status);
  return NULL;
}

int main(void) {
  pthread_t w, m;
  pthread_create(&m, NULL, monitor, NULL);
  pthread_create(&w, NULL, worker, NULL);
  pthread_join(w, NULL);
  pthread_join(m, NULL);
  return 0;
}
