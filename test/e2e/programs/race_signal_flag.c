/* A worker polls a volatile sig_atomic_t stop flag that a signal handler
 * sets (volatile is no synchronisation between threads): the handler runs
 * on the main thread, its write races with the worker's poll (TSan reports
 * it). The handler's accesses are the interrupted thread's. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
// expect-race: A B

static volatile sig_atomic_t stop;

static void on_signal(int sig) {
  (void)sig;
  stop = 1; // @A
}

static void *worker(void *arg) {
  (void)arg;
  long rounds = 0;
  while (!stop) // @B
    usleep(200), rounds++;
  return (void *)rounds;
}

int main(void) {
  pthread_t t;
  signal(SIGUSR1, on_signal);
  pthread_create(&t, NULL, worker, NULL);
  usleep(1000);
  raise(SIGUSR1);
  pthread_join(t, NULL);
  puts("stopped");
  return 0;
}
