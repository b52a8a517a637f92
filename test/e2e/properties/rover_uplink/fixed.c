/* Rover uplink, fixed (see common.h): the downlink waits until the command
 * is executed before it acknowledges and snapshots it, and execution and
 * reconfiguration both hold the radio lock. */
#include "common.h"

void snapshot(void) {
  frame_arg = slot.arg;
  frame_sum = slot.id ^ slot.arg;
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
  pthread_mutex_lock(&radio);
  execute_command(&slot);
  pthread_mutex_unlock(&radio);
  atomic_store(&executed, 1);
  post(1);
  return 0;
}

static void *downlink(void *arg) {
  (void)arg;
  await(1);
  while (!atomic_load(&executed))
    ;
  acknowledge(&slot);
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
  pthread_mutex_lock(&radio);
  radio_off();
  radio_on();
  pthread_mutex_unlock(&radio);
  pthread_join(u, 0);
  pthread_join(e, 0);
  pthread_join(d, 0);
  return 0;
}
