/* hidden_race.c - A data race that happens-before detectors miss.
 *
 * The shape of Carril's Figure 1.5 (KIT 2017) and Huang et al.'s Figure 1
 * (PLDI 2014): `deposit` updates `balance` without any lock and then logs
 * under `log_lock`; `audit` logs under the same lock and then reads
 * `balance`. In a normal run deposit is long done when audit starts (audit
 * sleeps first), so the unlock -> lock edge on log_lock orders the two
 * accesses and ThreadSanitizer reports nothing. Yet nothing protects
 * `balance`: had audit's logging run first, its read would race with the
 * write. `racepredict run` predicts that schedule from one recorded run and
 * replays the program under it to prove the race is real.
 *
 *   build/bin/racepredict-cc -O1 examples/hidden_race.c -o hidden_race
 *   build/bin/racepredict run -- ./hidden_race
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int balance = 100;
static int log_entries;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static void log_event(void) {
  pthread_mutex_lock(&log_lock);
  log_entries++;
  pthread_mutex_unlock(&log_lock);
}

static void *deposit(void *arg) {
  (void)arg;
  balance += 50; /* the unprotected update */
  log_event();
  return NULL;
}

static void *audit(void *arg) {
  (void)arg;
  usleep(20000); /* usually lets deposit finish first */
  log_event();
  printf("audit: balance = %d\n", balance); /* the racing read */
  return NULL;
}

int main(void) {
  pthread_t d, a;
  pthread_create(&d, NULL, deposit, NULL);
  pthread_create(&a, NULL, audit, NULL);
  pthread_join(d, NULL);
  pthread_join(a, NULL);
  printf("log entries: %d\n", log_entries);
  return 0;
}
