// Carril, "Predicting Errors in Concurrent Systems" (KIT 2017), Fig. 5.17:
// RaceQuest's scalability test. One data race on x, between main's x++
// before N lock hand-offs and the worker's x++ after its N iterations.
// The recorded run is the one of the figure: main's x++ and loop, then the
// worker's loop and x++ (a pipe, which the recorder does not see, holds
// the worker back), so the lock hand-off orders the two x++ and a
// happens-before detector sees no race. A predictor finds it only by moving
// the whole worker loop before main's first critical section; RVPredict
// failed at N = 200.
//
//   build/bin/racepredict-cc -O1 -g -DN=100000 bench/programs/fig517.c -o f
//   RACEPREDICT_OPTIONS=trace=fig517.rptrace ./f
//   build/bin/racepredict analyze fig517.rptrace
//
// With -DN=<n> the loop bound is a constant, the loop conditions depend on
// no read, and the pass records no branch for them: the race is
// predictable. Without -DN the bound comes from argv (./f 100000) through a
// call and a thread argument, which the pass conservatively treats as
// depending on every earlier read of the thread (a plain `br` per
// iteration): each worker iteration then needs the y it read, which main's
// loop wrote after its x++, so no sound predictor can report the race.
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int x, y;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
// Raw system calls, not recorded: fix the observed order only.
static int gate[2];

static void *worker(void *arg) {
#ifdef N
  (void)arg;
  const long n = N;
#else
  long n = (long)arg;
#endif
  char c;
  if (syscall(SYS_read, gate[0], &c, 1) != 1)
    abort();
  for (long i = 0; i < n; i++) {
    pthread_mutex_lock(&m);
    y++;
    pthread_mutex_unlock(&m);
  }
  x++; // races with main's x++
  return 0;
}

int main(int argc, char **argv) {
#ifdef N
  (void)argc;
  (void)argv;
  const long n = N;
#else
  long n = argc > 1 ? atol(argv[1]) : 100;
#endif
  if (pipe(gate) != 0)
    return 77;
  pthread_t t;
  pthread_create(&t, 0, worker, (void *)n);
  x++; // races with the worker's x++
  for (long i = 0; i < n; i++) {
    pthread_mutex_lock(&m);
    y++;
    pthread_mutex_unlock(&m);
  }
  char c = 1;
  if (syscall(SYS_write, gate[1], &c, 1) != 1)
    abort();
  pthread_join(t, 0);
  return 0;
}
