/* Never finishes on its own: batch must stop it at --test-timeout and
 * report a time-out, never a clean test. */
#include <stdio.h>
#include <unistd.h>

int ticks;

int main(void) {
  for (;;) {
    ticks = ticks + 1;
    sleep(1);
  }
}
