/* Memory reused for a new object is a new location. Two stages run one
 * after the other without synchronisation (they only take turns): each maps
 * a frame buffer, fills it and unmaps it, and allocates a large work area
 * (glibc maps it too), fills it and frees it. The second stage usually gets
 * the same addresses back; its writes at the same offsets (not only the
 * first word) are to new objects and race with nothing. */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

enum { kFrameBytes = 64 * 1024, kWorkBytes = 512 * 1024 };

static void *stage(void *arg) {
  long id = (long)arg;
  if (id == 2)
    testonly_wait();
  char *frame = mmap(NULL, kFrameBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (frame == MAP_FAILED)
    return NULL;
  long *work = malloc(kWorkBytes);
  for (int i = 0; i < 4; ++i) {
    frame[i * 4096 + 8] = (char)id;
    work[i * 512 + 1] = id;
  }
  printf("stage %ld: frame %p work %p\n", id, (void *)frame, (void *)work);
  free(work);
  munmap(frame, kFrameBytes);
  if (id == 1)
    testonly_signal();
  return NULL;
}

int main(void) {
  testonly_init();
  pthread_t a, b;
  pthread_create(&a, NULL, stage, (void *)1);
  pthread_create(&b, NULL, stage, (void *)2);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  return 0;
}
