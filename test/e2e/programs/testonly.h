/* testonly.h - Fixes the observed schedule without the recorder seeing it.
 *
 * A pipe orders two points of two threads; read(2)/write(2) are not
 * intercepted, so the trace has no synchronisation between them and every
 * race test proves the race was *predicted* from a run where it did not
 * manifest (CONVENTIONS E).
 *
 * Under replay (RACEPREDICT_OPTIONS contains replay=) the pipe must not
 * order anything: the witness schedule typically runs the waiting thread
 * first, and a hidden order the turnstile cannot see would block it until
 * the replay ends as `diverged`. So testonly_init then turns both ends into
 * /dev/zero and /dev/null, whose read/write return at once. It does this in
 * a helper the pass leaves uninstrumented (noinline: an inlined copy
 * would be instrumented), and testonly_wait/_signal stay
 * the same code, so that recording and replay record exactly the same
 * events (the replay matches events by per-thread ordinal). */
#ifndef RACEPREDICT_TESTONLY_H
#define RACEPREDICT_TESTONLY_H
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int testonly_fds[2];

__attribute__((noinline, disable_sanitizer_instrumentation)) static void
testonly_bypass_under_replay(void) {
  const char *o = getenv("RACEPREDICT_OPTIONS");
  if (!o || !strstr(o, "replay="))
    return;
  int z = open("/dev/zero", O_RDONLY), n = open("/dev/null", O_WRONLY);
  if (z < 0 || n < 0 || dup2(z, testonly_fds[0]) < 0 ||
      dup2(n, testonly_fds[1]) < 0)
    _exit(77);
  close(z);
  close(n);
}

static void testonly_init(void) {
  if (pipe(testonly_fds) != 0)
    _exit(77);
  testonly_bypass_under_replay();
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
