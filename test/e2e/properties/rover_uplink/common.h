/* The rover's uplink model, shared by buggy.c and fixed.c. We do not have
 * the thesis' rover program; this is a small faithful model of the
 * scenario it describes: commands arrive over the uplink into a command
 * slot, an executor runs them, a downlink thread acknowledges them and
 * sends telemetry, and the radio is reconfigured by maintenance. */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "testonly.h"

struct command {
  int id;
  int arg;
};

static volatile struct command slot;
static atomic_int received, executed;
static int actuator, acks, frame_arg, frame_sum, radio_state = 1;
static pthread_mutex_t radio = PTHREAD_MUTEX_INITIALIZER;

void receive_command(volatile struct command *c, int id, int arg) {
  c->id = id;
  c->arg = arg;
}
void execute_command(volatile struct command *c) {
  actuator += c->arg;
  c->arg = 0; /* consumed */ // @consume
}
void acknowledge(volatile struct command *c) { acks += c->id; }
void radio_off(void) { radio_state = 0; }
void radio_on(void) { radio_state = 1; }

/* Two more test-only pipes (raw system calls: the recorder sees none of them), so that the
 * hand-offs of the observed schedule cannot take each other's token:
 * chan 0 uplink -> executor, chan 1 executor -> downlink. They keep the
 * threads from spinning in the observed run; the atomic flags are the
 * synchronisation the analysis sees. */
static int chan[2][2];
static void chan_init(void) {
  for (int i = 0; i < 2; ++i) {
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
