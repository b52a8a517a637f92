/* Resource management, buggy (see common.h). main starts the jobs before
 * it initialises the manager (R5); nothing keeps the printer and the
 * scanner jobs apart (R4); the monitor prints its status page on the
 * printer once the printer job has it, but the job may release it first
 * (R1); the scanner job reports done before releasing the scanner, so
 * shutdown may find it held (R7). R2, R3 and R6 hold. The observed run
 * (test-only pipes) violates nothing; every violation is predicted.
 * expect-violation: R1_use_while_acquired relprinter monuse
 * expect-violation: R4_conflicting_resources acqprinter acqscanner
 * expect-violation: R4_conflicting_resources acqscanner acqprinter
 * expect-violation: R5_init_before_acquire acqprinter
 * expect-violation: R5_init_before_acquire acqscanner
 * expect-violation: R7_release_before_shutdown acqscanner shutdown */
#include "common.h"

static void *printer_job(void *arg) {
  (void)arg;
  await(0);
  rm_acquire(PRINTER); // @acqprinter
  rm_use(PRINTER);
  atomic_store(&printer_ready, 1);
  post(1);
  await(2);
  rm_release(PRINTER); // @relprinter
  atomic_fetch_add(&done, 1);
  post(3);
  return 0;
}

static void *monitor(void *arg) {
  (void)arg;
  await(1);
  while (!atomic_load(&printer_ready))
    ;
  rm_use(PRINTER); // @monuse
  post(2);
  return 0;
}

static void *scanner_job(void *arg) {
  (void)arg;
  await(3);
  rm_acquire(SCANNER);        // @acqscanner
  atomic_fetch_add(&done, 1); /* too early: still holds the scanner */
  rm_use(SCANNER);
  rm_release(SCANNER);
  post(4);
  return 0;
}

int main(void) {
  pthread_t p, m, s;
  chan_init();
  pthread_create(&p, 0, printer_job, 0);
  pthread_create(&m, 0, monitor, 0);
  pthread_create(&s, 0, scanner_job, 0);
  rm_init();
  post(0);
  await(4);
  while (atomic_load(&done) < 2)
    ;
  rm_shutdown(); // @shutdown
  pthread_join(p, 0);
  pthread_join(m, 0);
  pthread_join(s, 0);
  return 0;
}
