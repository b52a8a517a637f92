/* A fixed thread pool: main queues jobs on a mutex + condition-variable
 * queue and three workers run them; jobs of one kind add to a tally
 * without a lock. The first job is long: while its worker runs it, the
 * others take the next jobs, and one of the same kind adds to the tally
 * unordered with it. Recorded with each woken worker waiting for main's
 * time slice, the first worker ran every job itself and no race could be
 * predicted; a woken worker now gets a turn when main releases the queue
 * (wake_turn, docs/recording.md "The schedule"). */
#include <pthread.h>
#include <stdio.h>
// expect-race: T T

#define JOBS 8
#define WORKERS 3
struct job {
  int kind, size;
};
static struct job queue[JOBS];
static int head, tail, closed;
static pthread_mutex_t qm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t qc = PTHREAD_COND_INITIALIZER;
static long tally[2];
static long weights[64];

static void run(struct job j) {
  long v = 0;
  for (int i = 0; i < j.size; ++i)
    v += weights[i % 64]; // reads: the long job takes its time
  tally[j.kind] += v;     // @T
}

static void *worker(void *arg) {
  (void)arg;
  for (;;) {
    pthread_mutex_lock(&qm);
    while (head == tail && !closed)
      pthread_cond_wait(&qc, &qm);
    if (head == tail) {
      pthread_mutex_unlock(&qm);
      return NULL;
    }
    struct job j = queue[head++];
    pthread_mutex_unlock(&qm);
    run(j);
  }
}

int main(void) {
  for (int i = 0; i < 64; ++i)
    weights[i] = i;
  pthread_t w[WORKERS];
  for (int i = 0; i < WORKERS; ++i)
    pthread_create(&w[i], NULL, worker, NULL);
  for (int i = 0; i < JOBS; ++i) {
    pthread_mutex_lock(&qm);
    queue[tail].kind = i % 2;
    queue[tail].size = i == 0 ? 400 : 4;
    tail++;
    pthread_cond_signal(&qc);
    pthread_mutex_unlock(&qm);
  }
  pthread_mutex_lock(&qm);
  closed = 1;
  pthread_cond_broadcast(&qc);
  pthread_mutex_unlock(&qm);
  for (int i = 0; i < WORKERS; ++i)
    pthread_join(w[i], NULL);
  printf("%ld %ld\n", tally[0], tally[1]);
  return 0;
}
