/* testonly.h - Fixes the observed schedule without the recorder seeing it.
 *
 * A pipe orders two points of two threads; read(2)/write(2) are not
 * intercepted, so the trace has no synchronisation between them and every
 * race test proves the race was *predicted* from a run where it did not
 * manifest (CONVENTIONS E). */
#ifndef RACEPREDICT_TESTONLY_H
#define RACEPREDICT_TESTONLY_H
#include <unistd.h>

static int testonly_fds[2];
static void testonly_init(void) {
  if (pipe(testonly_fds) != 0)
    _exit(77);
}
/* Lets one testonly_wait() proceed. */
static void testonly_signal(void) {
  char c = 1;
  if (write(testonly_fds[1], &c, 1) != 1)
    _exit(77);
}
static void testonly_wait(void) {
  char c;
  if (read(testonly_fds[0], &c, 1) != 1)
    _exit(77);
}
#endif
