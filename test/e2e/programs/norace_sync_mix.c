/* Every intercepted primitive once, used correctly: read-write locks, spin
 * locks, pthread_once, try/timed locks, broadcast and timed waits. The
 * check is that the trace is consistent and nothing is reported. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

int table[4];
int config;
int counter;
int go;
int done;
pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
pthread_spinlock_t spin;
pthread_once_t once = PTHREAD_ONCE_INIT;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static void init_config(void) { config = 7; }

static void *worker(void *arg) {
  long id = (long)arg;
  pthread_once(&once, init_config);
  pthread_rwlock_rdlock(&rw);
  int v = table[id] + config;
  pthread_rwlock_unlock(&rw);
  pthread_rwlock_wrlock(&rw);
  table[id] = v;
  pthread_rwlock_unlock(&rw);
  pthread_spin_lock(&spin);
  counter += 1;
  pthread_spin_unlock(&spin);
  if (pthread_mutex_trylock(&m) != 0)
    pthread_mutex_lock(&m);
  while (!go)
    pthread_cond_wait(&cv, &m);
  done += 1;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(void) {
  pthread_t t[3];
  pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
  for (long i = 0; i < 3; ++i)
    pthread_create(&t[i], NULL, worker, (void *)i);
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += 5;
  if (pthread_mutex_timedlock(&m, &deadline) != 0)
    return 1;
  go = 1;
  pthread_cond_broadcast(&cv);
  while (done < 3)
    if (pthread_cond_timedwait(&cv, &m, &deadline) == ETIMEDOUT)
      break;
  pthread_mutex_unlock(&m);
  for (int i = 0; i < 3; ++i)
    pthread_join(t[i], NULL);
  printf("config=%d counter=%d done=%d\n", config, counter, done);
  return 0;
}
