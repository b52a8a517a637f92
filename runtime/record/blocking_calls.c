/*===- record/blocking_calls.c - Hand the token on before blocking calls --===*/
/*
 * Defines the libc calls of blocking_calls.def in the executable: each
 * hands the recording token on (token.cpp) and calls the real function,
 * found with dlsym(RTLD_NEXT) on first use. Written in C for the same
 * reason as interpose.c: glibc's C++ declarations carry exception
 * specifications the definitions would have to repeat.
 */
#define _GNU_SOURCE
#include "real_c.h"

#include <dlfcn.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void __racepredict_before_blocking(void);

#define RP_BLOCKING(ret, name, params, args)                                   \
  ret name params {                                                            \
    RP_REAL_C(f, ret, name, params)                                            \
    __racepredict_before_blocking();                                           \
    return f args;                                                             \
  }
#define RP_BLOCKING_VARIADIC(ret, name)
#include "blocking_calls.def"
#undef RP_BLOCKING
#undef RP_BLOCKING_VARIADIC

/* syscall(2) takes at most six arguments, all passed as longs in registers
 * on x86-64: forwarding six is exact whatever the call. */
long syscall(long number, ...) {
  RP_REAL_C(f, long, syscall, (long, ...))
  va_list ap;
  va_start(ap, number);
  long a[6];
  for (int i = 0; i < 6; ++i)
    a[i] = va_arg(ap, long);
  va_end(ap);
  __racepredict_before_blocking();
  return f(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
