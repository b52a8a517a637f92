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
  return 0;
}

static void *executor(void *arg) {
  (void)arg;
  while (!atomic_load(&received))
    ;
  pthread_mutex_lock(&radio);
  execute_command(&slot);
  pthread_mutex_unlock(&radio);
  atomic_store(&executed, 1);
  relay_signal();
  return 0;
}

static void *downlink(void *arg) {
  (void)arg;
  relay_wait();
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
  if (pipe(relay) != 0)
    return 77;
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
