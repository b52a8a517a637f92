/* Rover uplink, buggy (Carril 2017 §6, rules R1-R4; see common.h). The
 * downlink acknowledges and snapshots a command as soon as it is received,
 * not once it is executed (R2, and R4: the executor consumes the argument
 * between the snapshot's two reads), and the executor ignores the radio
 * lock (R3). R1 holds. The observed run ran executor, downlink and
 * maintenance one after the other (test-only pipes); every violation is
 * predicted.
 * expect-violation: R2_acknowledge_after_execute ack
 * expect-violation: R3_no_execution_during_reconfiguration off exec
 * expect-violation: R4_atomic_snapshot snap read1 consume read2 */
#include "common.h"

void snapshot(void) {             // @snap
  frame_arg = slot.arg;           // @read1
  frame_sum = slot.id ^ slot.arg; // @read2
}

static void *uplink(void *arg) {
  (void)arg;
  receive_command(&slot, 7, 42);
  atomic_store(&received, 1);
  post(0);
  return 0;
}

static void *executor(void *arg) {
  (void)arg;
  await(0);
  while (!atomic_load(&received))
    ;
  execute_command(&slot); // @exec
  atomic_store(&executed, 1);
  post(1);
  return 0;
}

static void *downlink(void *arg) {
  (void)arg;
  await(1);
  while (!atomic_load(&received)) /* should wait for `executed` */
    ;
  acknowledge(&slot); // @ack
  snapshot();
  testonly_signal();
  return 0;
}

int main(void) {
  pthread_t u, e, d;
  testonly_init();
  chan_init();
  pthread_create(&u, 0, uplink, 0);
  pthread_create(&e, 0, executor, 0);
  pthread_create(&d, 0, downlink, 0);
  testonly_wait();
  radio_off(); // @off
  radio_on();
  pthread_join(u, 0);
  pthread_join(e, 0);
  pthread_join(d, 0);
  return 0;
}
