/* Resource management (Carril 2017 §6, rules R1-R7), shared by buggy.c and
 * fixed.c. We do not have the thesis' program; this is a small faithful
 * model of the scenario: a resource manager (init, acquire, use, release,
 * shutdown) used by a printer job, a scanner job and a status monitor. */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "testonly.h"

enum { PRINTER = 1, SCANNER = 2 };

static int initialised, holder[3], uses[3];
void rm_init(void) { initialised = 1; }
void rm_shutdown(void) { initialised = 0; }
int rm_acquire(int id) { return holder[id] = 1, id; }
void rm_use(int id) { uses[id]++; }
void rm_release(int id) { holder[id] = 0; }

static atomic_int printer_ready, status_printed, done;

/* Test-only hand-offs that fix the observed schedule; the recorder does not
 * see pipes used through raw system calls, so they order nothing for the
 * analysis. */
static int chan[5][2];
static void chan_init(void) {
  for (int i = 0; i < 5; ++i) {
    if (pipe(chan[i]) != 0)
      _exit(77);
    /* Under replay the witness schedule orders the threads; a hidden
     * order would block them (testonly.h). */
    if (testonly_replaying())
      testonly_unblock(chan[i]);
  }
}
static void post(int i) {
  if (syscall(SYS_write, chan[i][1], "x", 1) != 1)
    _exit(77);
}
static void await(int i) {
  char c;
  if (syscall(SYS_read, chan[i][0], &c, 1) != 1)
    _exit(77);
}
