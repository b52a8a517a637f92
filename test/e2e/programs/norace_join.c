/* The child's writes are ordered before main's reads by pthread_join, and
 * main's initialisation before the child by pthread_create. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

int *result;
int input = 5;

static void *worker(void *arg) {
  (void)arg;
  result = malloc(sizeof *result);
  *result = input * 2;
  return NULL;
}

int main(void) {
  pthread_t t;
  input = 21;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  printf("%d\n", *result);
  free(result);
  return 0;
}
