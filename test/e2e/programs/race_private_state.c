/* Issue 17's shape at small scale: workers that spend nearly all their
 * events on private state (a checksum context on each worker's stack,
 * filled and walked: a table, a running state, loops and branches on its
 * own values, like zlib's deflate state in pigz), then publish one result
 * into a shared total without the lock that the job counter uses.
 *
 * The observed run has worker 1 publish first, then worker 2 (the test-only
 * pipe orders them, invisible to the recorder). The private accesses are
 * thread-local: the analysis leaves them out (docs/thread_local.md), and
 * the race on `total` between the two publications must still be
 * predicted, on these lines, with a witness that replay confirms, and the
 * job counter under its lock must not race. */
#include "testonly.h"
#include <pthread.h>
#include <stdio.h>
// same-without-local-reduction
// expect-race: A B
// expect-location: total

struct context {
  unsigned table[64];
  unsigned state;
  unsigned rounds;
};

static pthread_mutex_t jobs_lock = PTHREAD_MUTEX_INITIALIZER;
static int jobs_done;
static unsigned long total;

static void context_init(struct context *c, unsigned seed) {
  for (unsigned i = 0; i < 64; ++i)
    c->table[i] = seed * 2654435761u + i;
  c->state = seed;
  c->rounds = 0;
}

static void context_step(struct context *c, unsigned byte) {
  unsigned idx = (c->state ^ byte) & 63;
  if (c->table[idx] & 1)
    c->state = (c->state >> 1) ^ c->table[idx];
  else
    c->state = (c->state << 3) + byte;
  c->table[idx] += c->state;
  c->rounds++;
}

static unsigned checksum(unsigned seed, unsigned n) {
  struct context c;
  context_init(&c, seed);
  for (unsigned i = 0; i < n; ++i)
    context_step(&c, i * 7u + seed);
  return c.state ^ c.rounds;
}

static void *worker1(void *arg) {
  unsigned r = checksum((unsigned)(size_t)arg, 300);
  total += r; // @A
  pthread_mutex_lock(&jobs_lock);
  jobs_done++;
  pthread_mutex_unlock(&jobs_lock);
  testonly_signal();
  return NULL;
}

static void *worker2(void *arg) {
  unsigned r = checksum((unsigned)(size_t)arg, 300);
  testonly_wait();
  pthread_mutex_lock(&jobs_lock);
  jobs_done++;
  pthread_mutex_unlock(&jobs_lock);
  total += r; // @B
  return NULL;
}

int main(void) {
  testonly_init();
  pthread_t a, b;
  pthread_create(&a, NULL, worker1, (void *)(size_t)3);
  pthread_create(&b, NULL, worker2, (void *)(size_t)5);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("%d jobs, total %lu\n", jobs_done, total);
  return 0;
}
