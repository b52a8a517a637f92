/* A worker of a job pool waits on a condition variable for work; main
 * posts a job (signal), then updates the pool's bookkeeping under the same
 * mutex, then publishes a progress counter without it, which a monitor
 * thread reads. The witness of that race holds the worker's wait up to its
 * release and main's notify that wakes it, but not the wait's return (the
 * worker only needs the mutex again after the race): replay must not let
 * the woken worker re-take the mutex before the schedule is over, or main's
 * second lock blocks behind it (and the replay ends `diverged`). The
 * monitor reads progress only after main published it in the recorded run
 * (an order the recorder cannot see), so the race was predicted, not seen. */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>
// expect-race: A B

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_ready = PTHREAD_COND_INITIALIZER;
static int queued, taken, posted;
static int progress;

static void *worker(void *arg) {
  (void)arg;
  pthread_mutex_lock(&pool_lock);
  testonly_signal(); /* main posts only once this worker waits */
  while (queued == 0)
    pthread_cond_wait(&work_ready, &pool_lock);
  queued--;
  taken++;
  pthread_mutex_unlock(&pool_lock);
  return NULL;
}

static void *monitor(void *arg) {
  (void)arg;
  testonly_take(1);
  printf("progress %d\n", progress); // @B
  return NULL;
}

int main(void) {
  testonly_init();
  pthread_t w, m;
  pthread_create(&w, NULL, worker, NULL);
  pthread_create(&m, NULL, monitor, NULL);
  testonly_wait();
  pthread_mutex_lock(&pool_lock);
  queued++;
  pthread_cond_signal(&work_ready);
  pthread_mutex_unlock(&pool_lock);
  pthread_mutex_lock(&pool_lock);
  posted++;
  int done = taken;
  pthread_mutex_unlock(&pool_lock);
  progress = posted; // @A
  testonly_give(1);
  pthread_join(w, NULL);
  pthread_join(m, NULL);
  printf("posted %d, taken %d before\n", posted, done);
  return 0;
}
