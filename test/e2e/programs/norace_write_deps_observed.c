/* The twin of race_write_deps.c where T2's changed value *is* observed:
 * T3 reads GLOB under MU and only stores if it saw both increments. Its
 * branch needs the read to see 2, so T2's GLOB++ must store 2, so T2's read
 * must see T1's 1: T1's section precedes T2's, which precedes the flag, the
 * wait's return and T3's store. No race, and none may be predicted (the
 * write dependence of T2's store names its read of GLOB). */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>

int GLOB;
static int ready;
static pthread_mutex_t MU = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t QM = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t QC = PTHREAD_COND_INITIALIZER;

static void *t1(void *arg) {
  (void)arg;
  pthread_mutex_lock(&MU);
  GLOB++;
  pthread_mutex_unlock(&MU);
  testonly_signal();
  return NULL;
}

static void *t2(void *arg) {
  (void)arg;
  testonly_wait();
  pthread_mutex_lock(&MU);
  GLOB++;
  pthread_mutex_unlock(&MU);
  pthread_mutex_lock(&QM);
  ready = 1;
  pthread_cond_signal(&QC);
  pthread_mutex_unlock(&QM);
  return NULL;
}

static void *t3(void *arg) {
  (void)arg;
  pthread_mutex_lock(&QM);
  while (!ready)
    pthread_cond_wait(&QC, &QM);
  pthread_mutex_unlock(&QM);
  pthread_mutex_lock(&MU);
  int g = GLOB;
  pthread_mutex_unlock(&MU);
  if (g == 2)
    GLOB = 1;
  return NULL;
}

int main(void) {
  pthread_t a, b, c;
  testonly_init();
  pthread_create(&c, NULL, t3, NULL);
  pthread_create(&a, NULL, t1, NULL);
  pthread_create(&b, NULL, t2, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  pthread_join(c, NULL);
  printf("GLOB=%d\n", GLOB);
  return 0;
}
