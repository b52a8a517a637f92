/* The OpenMP synchronisation the recorder models, in one program with no
 * race: a region's start (the master's data before the fork) and join (the
 * team's results after it), the implicit barrier of a worksharing loop
 * (race_omp_nowait.c without `nowait`), an explicit barrier, a critical
 * section, an omp_lock_t, a reduction and an ordered loop. */
// cflags: -fopenmp
#include <omp.h>
#include <stdio.h>

enum { N = 64 };
static long partial[N];
static long checksum, best, total;
static int logLen;
static int logEntries[16];
static omp_lock_t logLock;

int main(void) {
  omp_init_lock(&logLock);
  long scale = 3; // written before the fork, read by the team
#pragma omp parallel num_threads(2)
  {
    int id = omp_get_thread_num();
#pragma omp for schedule(static)
    for (int i = 0; i < N; ++i)
      partial[i] = scale * i + 1;
    if (id == 1)
      checksum = partial[0] + partial[N - 1];
#pragma omp barrier
    if (id == 0)
      checksum += 1;
#pragma omp critical
    {
      if (partial[id * (N / 2)] > best)
        best = partial[id * (N / 2)];
    }
    omp_set_lock(&logLock);
    logEntries[logLen++] = id;
    omp_unset_lock(&logLock);
  }
  long sum = 0;
#pragma omp parallel for reduction(+ : sum) num_threads(2)
  for (int i = 0; i < N; ++i)
    sum += partial[i];
  total = sum;
#pragma omp parallel for ordered schedule(static, 1) num_threads(2)
  for (int i = 0; i < 4; ++i) {
#pragma omp ordered
    logEntries[logLen++] = 10 + i;
  }
  printf("checksum %ld best %ld total %ld entries %d\n", checksum, best, total,
         logLen);
  omp_destroy_lock(&logLock);
  return 0;
}
