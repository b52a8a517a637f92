/* A program that forks, execs and spawns (docs/recording.md, "fork and
 * exec"), each time after threads have done racy work:
 *   fork_exec fork    two workers race on `hits` (@P); then a forked child
 *                     runs two workers of its own racing on `child_hits`
 *                     (@C) and ends with _exit; the parent prints its pid
 *   fork_exec exec    a worker and main race on `hits` (@W, @M), then main
 *                     execs this program with `after`, whose two workers
 *                     race on `after_hits` (@A)
 *   fork_exec spawn   the fork race, then system() runs this program with
 *                     `after` (a posix_spawn'd shell, then an exec: the new
 *                     process finds the trace taken and records its own)
 * run_fork_exec.py checks which trace holds which race, exactly. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

long hits, child_hits, after_hits;

static void *bump_hits(void *arg) {
  (void)arg;
  hits += 1; // @P
  return NULL;
}
static void *bump_child(void *arg) {
  (void)arg;
  child_hits += 1; // @C
  return NULL;
}
static void *bump_after(void *arg) {
  (void)arg;
  after_hits += 1; // @A
  return NULL;
}
static void *bump_worker(void *arg) {
  (void)arg;
  hits += 2; // @W
  return NULL;
}

static void two(void *(*fn)(void *)) {
  pthread_t a, b;
  pthread_create(&a, NULL, fn, NULL);
  pthread_create(&b, NULL, fn, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "after")) {
    two(bump_after);
    return 0;
  }
  if (!strcmp(mode, "exec")) {
    pthread_t t;
    pthread_create(&t, NULL, bump_worker, NULL);
    hits += 1; // @M
    pthread_join(t, NULL);
    execl(argv[0], argv[0], "after", (char *)NULL);
    return 1;
  }
  two(bump_hits);
  if (!strcmp(mode, "spawn")) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' after", argv[0]);
    return system(cmd) != 0;
  }
  pid_t child = fork();
  if (child == 0) {
    two(bump_child);
    _exit(0);
  }
  int status = 1;
  waitpid(child, &status, 0);
  printf("%d\n", (int)child);
  return status != 0;
}
