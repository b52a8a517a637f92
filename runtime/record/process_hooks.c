/*===- record/process_hooks.c - exec* and _exit in the executable ---------===*/
/*
 * The exec family and _exit, defined in the executable like the pthread
 * interceptors (interpose.c): glibc's execl/execvp/... call its internal
 * execve, so each is defined here. Before an exec that can succeed (the
 * file exists and is executable, on PATH for the p forms) the trace is
 * written and the new image gets a trace name of its own
 * (fork_exec.cpp); an exec that fails at once (no such program) changes
 * nothing. _exit and _Exit write the trace first (atexit does not run).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;
void *__racepredict_real(const char *name);
char **__racepredict_before_exec(const char *prog, char *const envp[],
                                 size_t *bytes);
void __racepredict_exec_failed(const char *prog, char **env, size_t bytes);
void __racepredict_before_exit_now(void);

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execvpe_fn)(const char *, char *const[], char *const[]);

static int runnable(const char *path) { return access(path, X_OK) == 0; }

/* Whether execvp would find `file` on PATH (or as a path). */
static int findable(const char *file) {
  if (strchr(file, '/'))
    return runnable(file);
  const char *path = getenv("PATH");
  if (!path)
    path = "/bin:/usr/bin";
  size_t fl = strlen(file);
  for (const char *p = path;; ++p) {
    const char *end = strchrnul(p, ':');
    char buf[4096];
    size_t dl = (size_t)(end - p);
    if (dl + fl + 2 < sizeof buf) {
      memcpy(buf, dl ? p : ".", dl ? dl : 1);
      size_t n = dl ? dl : 1;
      buf[n] = '/';
      memcpy(buf + n + 1, file, fl + 1);
      if (runnable(buf))
        return 1;
    }
    if (!*end)
      return 0;
    p = end;
  }
}

static int doExec(const char *prog, int search, char *const argv[],
                  char *const envp[]) {
  size_t bytes = 0;
  char **env = (search ? findable(prog) : runnable(prog))
                   ? __racepredict_before_exec(prog, envp, &bytes)
                   : NULL;
  int r;
  if (search) {
    execvpe_fn f = (execvpe_fn)__racepredict_real("execvpe");
    r = f(prog, argv, env ? env : envp);
  } else {
    execve_fn f = (execve_fn)__racepredict_real("execve");
    r = f(prog, argv, env ? env : envp);
  }
  __racepredict_exec_failed(prog, env, bytes);
  return r;
}

int execve(const char *path, char *const argv[], char *const envp[]) {
  return doExec(path, 0, argv, envp);
}
int execv(const char *path, char *const argv[]) {
  return doExec(path, 0, argv, environ);
}
int execvpe(const char *file, char *const argv[], char *const envp[]) {
  return doExec(file, 1, argv, envp);
}
int execvp(const char *file, char *const argv[]) {
  return doExec(file, 1, argv, environ);
}

/* The variadic forms: the arguments up to the terminating NULL (and, for
 * execle, the environment after it). */
#define RP_COLLECT_ARGS(first, ap, argv)                                       \
  size_t n = 1;                                                                \
  va_start(ap, first);                                                         \
  while (va_arg(ap, char *))                                                   \
    ++n;                                                                       \
  va_end(ap);                                                                  \
  char *argv[n + 1];                                                           \
  argv[0] = (char *)(first);                                                   \
  va_start(ap, first);                                                         \
  for (size_t i = 1; i <= n; ++i)                                              \
    argv[i] = va_arg(ap, char *);

int execl(const char *path, const char *arg, ...) {
  va_list ap;
  RP_COLLECT_ARGS(arg, ap, argv)
  va_end(ap);
  return doExec(path, 0, argv, environ);
}
int execlp(const char *file, const char *arg, ...) {
  va_list ap;
  RP_COLLECT_ARGS(arg, ap, argv)
  va_end(ap);
  return doExec(file, 1, argv, environ);
}
int execle(const char *path, const char *arg, ...) {
  va_list ap;
  RP_COLLECT_ARGS(arg, ap, argv)
  char *const *envp = va_arg(ap, char *const *);
  va_end(ap);
  return doExec(path, 0, argv, envp);
}
#undef RP_COLLECT_ARGS

void _exit(int status) {
  __racepredict_before_exit_now();
  void (*f)(int) = (void (*)(int))__racepredict_real("_exit");
  f(status);
  __builtin_unreachable();
}
void _Exit(int status) { _exit(status); }
