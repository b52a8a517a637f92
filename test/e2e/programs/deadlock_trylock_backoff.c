/* Two tellers move money between two accounts in opposite directions. A
 * transfer locks the source account, then only tries the destination's
 * lock; if that is taken it releases the source and starts over (the
 * back-off protocol for locks taken in no global order). A try-lock never
 * waits, so the opposite orders cannot deadlock. The tellers' shared
 * count of transfers is bumped outside the locks: that races.
 * (pthread_mutex_trylock is recorded with the try-acquire mark, format
 * v7.) */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
// expect-deadlock: none
// expect-race: N N

struct account {
  pthread_mutex_t mu;
  long balance;
};

static struct account checking = {PTHREAD_MUTEX_INITIALIZER, 100};
static struct account savings = {PTHREAD_MUTEX_INITIALIZER, 100};
static int transfers;

static void transfer(struct account *from, struct account *to, long amount) {
  for (;;) {
    pthread_mutex_lock(&from->mu);
    if (pthread_mutex_trylock(&to->mu) == 0)
      break;
    pthread_mutex_unlock(&from->mu); /* back off: let the other finish */
    sched_yield();
  }
  from->balance -= amount;
  to->balance += amount;
  pthread_mutex_unlock(&to->mu);
  pthread_mutex_unlock(&from->mu);
  transfers++; // @N
}

static void *teller(void *arg) {
  int toSavings = arg != NULL;
  for (int i = 0; i < 3; ++i) {
    if (toSavings)
      transfer(&checking, &savings, 5);
    else
      transfer(&savings, &checking, 7);
  }
  return NULL;
}

int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, NULL, teller, &t1);
  pthread_create(&t2, NULL, teller, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  printf("checking=%ld savings=%ld transfers=%d\n", checking.balance,
         savings.balance, transfers);
  return 0;
}
