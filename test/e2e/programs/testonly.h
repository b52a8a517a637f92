/* testonly.h - Fixes the observed schedule without the recorder seeing it.
 *
 * A pipe orders two points of two threads, through raw system calls: the
 * recorder records what read(2)/write(2) move through a pipe (a send and a
 * receive, ordered), not what syscall(SYS_read, ...) moves, so the trace has
 * no synchronisation between the two points and every race test proves the
 * race was *predicted* from a run where it did not manifest (CONVENTIONS E).
 *
 * The functions are not instrumented (and never inlined into instrumented
 * code): the harness must leave no trace at all, not even the branch on
 * read(2)'s result, which would depend on every earlier read of the thread
 * under the plain rule. Recording and replay then record exactly the same
 * events (the replay matches events by per-thread ordinal).
 *
 * Under replay (RACEPREDICT_OPTIONS contains replay=FILE) the pipes must not
 * order anything: the witness schedule typically runs the waiting thread
 * first, and a hidden order the turnstile cannot see would block it until
 * the replay ends as `diverged`. So testonly_init then turns every end into
 * /dev/zero and /dev/null, whose read/write return at once. */
#ifndef RACEPREDICT_TESTONLY_H
#define RACEPREDICT_TESTONLY_H
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define TESTONLY __attribute__((noinline, disable_sanitizer_instrumentation))

/* Two one-way channels (pipes): channel 0 is what testonly_signal/wait use;
 * channel 1 lets two threads hand the turn back and forth. */
static int testonly_fds[2][2];

/* Whether this run replays a schedule: only a `replay=` that names one
 * (`racepredict run` records with an empty one: it clears a replay= the
 * user's options may carry). */
TESTONLY static int testonly_replaying(void) {
  const char *o = getenv("RACEPREDICT_OPTIONS");
  const char *r = o ? strstr(o, "replay=") : NULL;
  while (r && (r[7] == ':' || r[7] == 0))
    r = strstr(r + 7, "replay=");
  return r != NULL;
}
/* Under replay: makes a test-only pipe order nothing (reads from
 * /dev/zero, writes to /dev/null return at once). */
TESTONLY static void testonly_unblock(int fds[2]) {
  int z = open("/dev/zero", O_RDONLY), n = open("/dev/null", O_WRONLY);
  if (z < 0 || n < 0 || dup2(z, fds[0]) < 0 || dup2(n, fds[1]) < 0)
    _exit(77);
  close(z);
  close(n);
}
TESTONLY static void testonly_init(void) {
  if (pipe(testonly_fds[0]) != 0 || pipe(testonly_fds[1]) != 0)
    _exit(77);
  if (!testonly_replaying())
    return;
  for (int ch = 0; ch < 2; ++ch)
    testonly_unblock(testonly_fds[ch]);
}
/* Lets one testonly_take(ch) proceed. */
TESTONLY static void testonly_give(int ch) {
  char c = 1;
  if (syscall(SYS_write, testonly_fds[ch][1], &c, 1) != 1)
    _exit(77);
}
TESTONLY static void testonly_take(int ch) {
  char c;
  if (syscall(SYS_read, testonly_fds[ch][0], &c, 1) != 1)
    _exit(77);
}
/* Lets one testonly_wait() proceed. */
TESTONLY static void testonly_signal(void) { testonly_give(0); }
TESTONLY static void testonly_wait(void) { testonly_take(0); }

/* A hidden flag: ad-hoc synchronisation the recorder cannot see and, unlike
 * the pipes, replay cannot lift either (as code in an uninstrumented library
 * would be). A witness that needs testonly_flag_wait to pass before
 * testonly_flag_set cannot be enforced: the replay ends `diverged`. */
static volatile int testonly_flag;
TESTONLY static void testonly_flag_set(void) { testonly_flag = 1; }
TESTONLY static void testonly_flag_wait(void) {
  while (!testonly_flag)
    sched_yield();
}
#endif
