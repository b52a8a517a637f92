/* Deadlock expressed as a property (Carril 2017 §6): transfer() locks the
 * two accounts in opposite orders in the two threads. The observed run
 * serialises them (a test-only pipe the recorder does not see), so it does
 * not deadlock; the property predicts the deadlock, once for each choice of
 * which thread is t1.
 * (The thesis' program is not available; this is a small program of the
 * scenario it describes.)
 * expect-violation: lock_order_deadlock lockA1 lockB2 lockB1 lockA2
 * expect-violation: lock_order_deadlock lockB2 lockA1 lockA2 lockB1 */
#include <pthread.h>

#include "testonly.h"

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static int balance_a = 100, balance_b = 100;

static void *a_to_b(void *arg) {
  (void)arg;
  pthread_mutex_lock(&a); // @lockA1
  pthread_mutex_lock(&b); // @lockB1
  balance_a -= 10;
  balance_b += 10;
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  testonly_signal();
  return 0;
}

static void *b_to_a(void *arg) {
  (void)arg;
  testonly_wait();
  pthread_mutex_lock(&b); // @lockB2
  pthread_mutex_lock(&a); // @lockA2
  balance_b -= 5;
  balance_a += 5;
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&b);
  return 0;
}

int main(void) {
  pthread_t t1, t2;
  testonly_init();
  pthread_create(&t1, 0, a_to_b, 0);
  pthread_create(&t2, 0, b_to_a, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  return balance_a + balance_b == 200 ? 0 : 1;
}
