/* race_printf_status.c's twin: the worker writes the status line and the
 * monitor prints it under one lock; nothing races. */
#include <pthread.h>
#include <stdio.h>

char status[32] = "starting";
pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg) {
  (void)arg;
  for (int step = 1; step <= 3; ++step) {
    pthread_mutex_lock(&lock);
    snprintf(status, sizeof status, "step %d of 3", step);
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

static void *monitor(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  printf("status: %.20s\n", status);
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  pthread_t w, m;
  pthread_create(&m, NULL, monitor, NULL);
  pthread_create(&w, NULL, worker, NULL);
  pthread_join(w, NULL);
  pthread_join(m, NULL);
  return 0;
}
