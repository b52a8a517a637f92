/* Ends the process while other threads hold, wait for and spin on locks:
 * run_endings.py runs it hundreds of times with every way of ending, from
 * every thread, after a varying amount of work, and checks every trace with
 * check-trace (docs/recording.md, "Buffers, the file, and shutdown").
 *
 *   stress_endings HOW WHO ROUNDS
 *
 * HOW: return (from main; a worker returns from its start routine, and
 * main's join returns), exit (status 7), abort, segv (raise(SIGSEGV)),
 * term (kill(getpid(), SIGTERM): delivered to any thread, maybe one inside
 * a recording hook), int_term (SIGINT and at once SIGTERM: the second comes
 * while the first one's handler writes the trace), main_exit (main calls
 * pthread_exit at once, and the ender, a worker, exit(7) later).
 * WHO: 0 = main, 1-4 = the worker that ends the process.
 * Workers: 1 holds m across a sleep (others block in the real lock), 2
 * spins on pthread_mutex_trylock(m) (yielding), 3 waits on a condition
 * variable under m (so it may be between the wait's release and its return
 * at the end) and spins on an atomic flag, 4 takes a rwlock and a spin
 * lock.
 * Nobody else ever ends: the process ends only through the ender. */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
pthread_spinlock_t spin;
long counter, reads, spun;
atomic_int flag;
const char *how = "return";
int who, rounds;

static void end_here(void) {
  if (!strcmp(how, "exit") || !strcmp(how, "main_exit"))
    exit(7);
  if (!strcmp(how, "abort"))
    abort();
  if (!strcmp(how, "segv"))
    raise(SIGSEGV);
  if (!strcmp(how, "term"))
    kill(getpid(), SIGTERM);
  if (!strcmp(how, "int_term")) { // Ctrl-C, then `run` forwarding SIGTERM
    kill(getpid(), SIGINT);
    kill(getpid(), SIGTERM);
  }
}

static void work(long id) {
  switch (id) {
  case 1:
    pthread_mutex_lock(&m);
    counter += 1;
    usleep(20);
    pthread_mutex_unlock(&m);
    usleep(20); // a chance for the others (a mutex is not fair)
    break;
  case 2:
    while (pthread_mutex_trylock(&m))
      sched_yield();
    counter += 2;
    pthread_cond_signal(&c);
    pthread_mutex_unlock(&m);
    break;
  case 3: {
    pthread_mutex_lock(&m);
    struct timespec t = {0, 0};
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_nsec += 200000;
    if (t.tv_nsec >= 1000000000) {
      t.tv_sec += 1;
      t.tv_nsec -= 1000000000;
    }
    pthread_cond_timedwait(&c, &m, &t);
    counter += 3;
    pthread_mutex_unlock(&m);
    atomic_store(&flag, 1);
    while (atomic_load(&flag) == 1 && spun++ < 100)
      ;
    break;
  }
  default:
    pthread_rwlock_rdlock(&rw);
    reads += counter;
    pthread_rwlock_unlock(&rw);
    pthread_spin_lock(&spin);
    reads += 1;
    pthread_spin_unlock(&spin);
    pthread_rwlock_wrlock(&rw);
    atomic_store(&flag, 0);
    pthread_rwlock_unlock(&rw);
    break;
  }
}

static void *worker(void *arg) {
  long id = (long)arg;
  for (int i = 0; id != who || i < rounds; ++i) {
    work(id);
    if (id != who)
      usleep(5); // keeps the traces small: check-trace reads them all
  }
  if (!strcmp(how, "return"))
    return NULL;
  end_here();
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 3) {
    how = argv[1];
    who = atoi(argv[2]);
    rounds = atoi(argv[3]);
  }
  pthread_spin_init(&spin, 0);
  pthread_t t[4];
  for (long i = 0; i < 4; ++i)
    pthread_create(&t[i], NULL, worker, (void *)(i + 1));
  if (!strcmp(how, "main_exit"))
    pthread_exit(NULL);
  if (who != 0) {
    // HOW=return: the ender returns, so does its join and then main.
    pthread_join(t[who - 1], NULL);
    return 0;
  }
  for (int i = 0; i < rounds; ++i) {
    pthread_mutex_lock(&m);
    counter += 10;
    pthread_mutex_unlock(&m);
  }
  if (!strcmp(how, "return"))
    return 0;
  end_here();
  return 0;
}
