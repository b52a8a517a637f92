/* Hand-offs through descriptors, each the only thing that orders a write of
 * shared memory before a read of it in another thread: a job pointer
 * through a pipe, a request and its reply through a socketpair, the same
 * over a TCP connection on the loopback interface, and a report written to
 * a file that another thread reads back. No race. */
#include "testonly.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

struct request {
  int op;
  long arg;
  long result;
};

static int pipeFds[2], pairFds[2], listener, client, reportFd;
static char reportPath[] = "/tmp/racepredict-fd-handoffXXXXXX";
static struct request viaPipe, viaPair, viaTcp;
static long reportTotal;

/* Serves one request on `fd`: receives its address, computes, replies. */
static void serve(int fd) {
  struct request *r;
  if (read(fd, &r, sizeof r) != sizeof r)
    exit(1);
  r->result = r->arg * (r->op == 1 ? 2 : 3);
  if (write(fd, &r, sizeof r) != sizeof r)
    exit(1);
}

static void *server(void *arg) {
  (void)arg;
  struct request *job; // the pipe: a job, no reply
  if (read(pipeFds[0], &job, sizeof job) != sizeof job)
    exit(1);
  job->result = job->arg + 1;
  serve(pairFds[1]);
  int conn = accept(listener, NULL, NULL);
  if (conn < 0)
    exit(1);
  serve(conn);
  close(conn);
  reportTotal = viaPipe.result + viaPair.result + viaTcp.result;
  if (pwrite(reportFd, &reportTotal, sizeof reportTotal, 0) !=
      sizeof reportTotal)
    exit(1);
  testonly_signal(); // the file has no blocking read: fix the order
  return NULL;
}

/* Sends the request's address on `fd` and waits for it to come back. */
static void call(int fd, struct request *r, int op, long arg) {
  r->op = op;
  r->arg = arg;
  if (write(fd, &r, sizeof r) != sizeof r || read(fd, &r, sizeof r) != sizeof r)
    exit(1);
  printf("op %d(%ld) = %ld\n", op, arg, r->result);
}

int main(void) {
  testonly_init();
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t al = sizeof a;
  reportFd = mkstemp(reportPath);
  listener = socket(AF_INET, SOCK_STREAM, 0);
  if (pipe(pipeFds) || socketpair(AF_UNIX, SOCK_STREAM, 0, pairFds) ||
      reportFd < 0 || listener < 0 ||
      bind(listener, (struct sockaddr *)&a, sizeof a) || listen(listener, 1) ||
      getsockname(listener, (struct sockaddr *)&a, &al))
    return 77;
  unlink(reportPath);
  pthread_t t;
  pthread_create(&t, NULL, server, NULL);
  viaPipe.arg = 41;
  struct request *job = &viaPipe;
  if (write(pipeFds[1], &job, sizeof job) != sizeof job)
    return 1;
  call(pairFds[0], &viaPair, 1, 21);
  client = socket(AF_INET, SOCK_STREAM, 0);
  if (client < 0 || connect(client, (struct sockaddr *)&a, sizeof a))
    return 77;
  call(client, &viaTcp, 2, 14);
  testonly_wait();
  long total;
  if (pread(reportFd, &total, sizeof total, 0) != sizeof total)
    return 1;
  printf("report %ld (%ld)\n", total, reportTotal);
  pthread_join(t, NULL);
  return 0;
}
