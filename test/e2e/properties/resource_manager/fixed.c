/* Resource management, fixed (see common.h): the manager is initialised
 * before the jobs start, a bus lock keeps the conflicting jobs apart, the
 * printer job keeps the printer until the monitor has printed, and the
 * scanner job reports done after releasing. */
#include "common.h"

static pthread_mutex_t bus = PTHREAD_MUTEX_INITIALIZER;

static void *printer_job(void *arg) {
  (void)arg;
  await(0);
  pthread_mutex_lock(&bus);
  rm_acquire(PRINTER);
  rm_use(PRINTER);
  atomic_store(&printer_ready, 1);
  post(1);
  await(2);
  while (!atomic_load(&status_printed))
    ;
  rm_release(PRINTER);
  pthread_mutex_unlock(&bus);
  atomic_fetch_add(&done, 1);
  post(3);
  return 0;
}

static void *monitor(void *arg) {
  (void)arg;
  await(1);
  while (!atomic_load(&printer_ready))
    ;
  rm_use(PRINTER);
  atomic_store(&status_printed, 1);
  post(2);
  return 0;
}

static void *scanner_job(void *arg) {
  (void)arg;
  await(3);
  pthread_mutex_lock(&bus);
  rm_acquire(SCANNER);
  rm_use(SCANNER);
  rm_release(SCANNER);
  pthread_mutex_unlock(&bus);
  atomic_fetch_add(&done, 1);
  post(4);
  return 0;
}

int main(void) {
  pthread_t p, m, s;
  chan_init();
  rm_init();
  pthread_create(&p, 0, printer_job, 0);
  pthread_create(&m, 0, monitor, 0);
  pthread_create(&s, 0, scanner_job, 0);
  post(0);
  await(4);
  while (atomic_load(&done) < 2)
    ;
  rm_shutdown();
  pthread_join(p, 0);
  pthread_join(m, 0);
  pthread_join(s, 0);
  return 0;
}
