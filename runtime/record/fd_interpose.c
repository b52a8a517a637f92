/*===- record/fd_interpose.c - read, write, send, recv & co. ------------===*/
/*
 * Defines the calls of fd_calls.def in the executable: each hands its
 * descriptor's channel to fd_hooks.cpp around the real call (fd_call.h),
 * which is found with dlsym(RTLD_NEXT) on first use. Written in C for the
 * same reason as interpose.c.
 */
#define _GNU_SOURCE
#include "fd_call.h"
#include "real_c.h"

#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

void __racepredict_before_blocking(void);

static uint64_t iovBytes(const struct iovec *iov, int n) {
  uint64_t total = 0;
  for (int i = 0; iov && i < n; ++i)
    total += iov[i].iov_len;
  return total;
}
static int peeks(int flags) { return (flags & MSG_PEEK) != 0; }
static int dontWait(int flags) { return (flags & MSG_DONTWAIT) != 0; }

#define RP_BUFFER_ARGS(ptr, iov, iovcnt) ptr, iov, iovcnt
/* The buffer's reads are recorded before the call (a nonblocking call that
 * then fails with EAGAIN has them too), its writes after it. */
#define RP_FD_CALL(ret, name, params, args, direction, bytes, offset,          \
                   dontwait, buffer)                                           \
  ret name params {                                                            \
    RP_REAL_C(f, ret, name, params)                                            \
    struct rp_fd_call c;                                                       \
    if (direction == RP_FD_SEND)                                               \
      __racepredict_fd_buffer(direction, RP_BUFFER_ARGS buffer, bytes);        \
    int how =                                                                  \
        __racepredict_fd_begin(&c, fd, direction, bytes, offset, dontwait);    \
    if (how < 0)                                                               \
      return -1;                                                               \
    ssize_t r;                                                                 \
    if (how == 0) {                                                            \
      __racepredict_before_blocking();                                         \
      r = f args;                                                              \
    } else {                                                                   \
      r = __racepredict_fd_end(&c, f args);                                    \
    }                                                                          \
    if (direction == RP_FD_RECV && r > 0)                                      \
      __racepredict_fd_buffer(direction, RP_BUFFER_ARGS buffer, r);            \
    return r;                                                                  \
  }
#include "fd_calls.def"
#undef RP_FD_CALL
