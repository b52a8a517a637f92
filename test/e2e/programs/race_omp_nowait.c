/* A worksharing loop with `nowait`: thread 1 goes on to read an element
 * thread 0 computes in the loop, with no barrier in between. (Without
 * nowait the loop's implicit barrier orders them: norace_omp.c.) */
// cflags: -fopenmp
#include <omp.h>
#include <stdio.h>
// expect-race: W R

enum { N = 64 };
static long partial[N];
static long checksum;

static long work(int i) { return (long)i * i + 1; }

int main(void) {
#pragma omp parallel num_threads(2)
  {
#pragma omp for schedule(static) nowait
    for (int i = 0; i < N; ++i)
      partial[i] = work(i); // @W
    if (omp_get_thread_num() == 1)
      checksum = partial[0] + partial[N - 1]; // @R
  }
  printf("checksum %ld\n", checksum);
  return 0;
}
