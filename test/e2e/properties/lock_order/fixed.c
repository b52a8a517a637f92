/* Deadlock as a property, fixed: a gate lock around both transfers, so no
 * thread can hold its first account lock while the other holds its own. */
#include <pthread.h>

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static int balance_a = 100, balance_b = 100;

static void *a_to_b(void *arg) {
  (void)arg;
  pthread_mutex_lock(&gate);
  pthread_mutex_lock(&a);
  pthread_mutex_lock(&b);
  balance_a -= 10;
  balance_b += 10;
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&gate);
  return 0;
}

static void *b_to_a(void *arg) {
  (void)arg;
  pthread_mutex_lock(&gate);
  pthread_mutex_lock(&b);
  pthread_mutex_lock(&a);
  balance_b -= 5;
  balance_a += 5;
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&gate);
  return 0;
}

int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, 0, a_to_b, 0);
  pthread_create(&t2, 0, b_to_a, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  return balance_a + balance_b == 200 ? 0 : 1;
}
