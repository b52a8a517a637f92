/* Phases separated by a barrier, and a hand-off through a semaphore. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

int slots[2];
int sum;
int handoff;
pthread_barrier_t bar;
sem_t sem;

static void *worker(void *arg) {
  int id = (int)(long)arg;
  slots[id] = id + 1;
  pthread_barrier_wait(&bar);
  if (id == 0)
    sum = slots[0] + slots[1];
  pthread_barrier_wait(&bar);
  if (id == 1) {
    handoff = sum;
    sem_post(&sem);
  }
  return NULL;
}

int main(void) {
  pthread_t t[2];
  pthread_barrier_init(&bar, NULL, 2);
  sem_init(&sem, 0, 0);
  for (long i = 0; i < 2; ++i)
    pthread_create(&t[i], NULL, worker, (void *)i);
  sem_wait(&sem);
  printf("handoff=%d\n", handoff);
  for (int i = 0; i < 2; ++i)
    pthread_join(t[i], NULL);
  pthread_barrier_destroy(&bar);
  return 0;
}
