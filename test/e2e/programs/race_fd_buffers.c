/* A relay as network services are built: a sender thread write()s the
 * outgoing message while a composer thread is still filling it in (race
 * C-W), and a receiver thread read()s the pipe into the inbox that a parser
 * thread already scans (race R-P). ThreadSanitizer's read/write
 * interceptors see the buffers; so does the recorder with fd_buffers=1
 * (fd_buffers.cpp). */
#include <pthread.h>
#include <unistd.h>
// record-options: fd_buffers=1
// expect-race: C W
// expect-race: R P

char outbox[16] = "hello, relay";
char inbox[16];
int pipefd[2];
long seen;

static void *composer(void *arg) {
  (void)arg;
  outbox[0] = 'H'; // @C
  return NULL;
}

static void *sender(void *arg) {
  (void)arg;
  write(pipefd[1], outbox, sizeof outbox); // @W
  return NULL;
}

static void *receiver(void *arg) {
  (void)arg;
  read(pipefd[0], inbox, sizeof inbox); // @R
  return NULL;
}

static void *parser(void *arg) {
  (void)arg;
  seen = inbox[4]; // @P
  return NULL;
}

int main(void) {
  if (pipe(pipefd))
    return 1;
  pthread_t t[4];
  pthread_create(&t[0], NULL, sender, NULL);
  pthread_create(&t[1], NULL, composer, NULL);
  pthread_create(&t[2], NULL, parser, NULL);
  pthread_create(&t[3], NULL, receiver, NULL);
  for (int i = 0; i < 4; ++i)
    pthread_join(t[i], NULL);
  return 0;
}
