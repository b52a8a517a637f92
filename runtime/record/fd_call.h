/*===- record/fd_call.h - One read or write on a descriptor, C and C++ ---===*/
/*
 * fd_interpose.c defines read, write, send, recv & co. in the executable
 * (in C, as interpose.c, for glibc's C++ exception specifications); each
 * asks fd_hooks.cpp to begin the call (find the channel, take its lock,
 * record a send), makes the real call and ends it (record a receive,
 * release). docs/recording.md, "Pipes, sockets and files".
 */
#ifndef RACEPREDICT_RECORD_FD_CALL_H
#define RACEPREDICT_RECORD_FD_CALL_H

#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The state of one call between begin and end (fd_hooks.cpp). */
struct rp_fd_call {
  uint64_t state[8];
};

/* What a call does to its descriptor's channel. */
enum { RP_FD_SEND = 0, RP_FD_RECV = 1 };

/* Begins a call moving up to `bytes` bytes (`offset` >= 0: pread/pwrite's
 * explicit offset; `nonblocking`: the call may not wait). Returns 1: make
 * the real call, then pass its result to __racepredict_fd_end; 0: the
 * descriptor is no channel, make the call as is; -1: return -1 with errno
 * EAGAIN (a nonblocking call on a channel another thread is using). */
int __racepredict_fd_begin(struct rp_fd_call *c, int fd, int direction,
                           uint64_t bytes, int64_t offset, int nonblocking);
/* Ends a call begun with 1; returns `result` (errno as the call left it). */
ssize_t __racepredict_fd_end(struct rp_fd_call *c, ssize_t result);

struct iovec;
/* The program's memory a call moves: the `bytes` a send reads, recorded
 * before it, or the `bytes` a receive wrote, after it; at `buf`, or in the
 * `iovcnt` pieces of `iov` (fd_buffers.cpp). Keeps errno. */
void __racepredict_fd_buffer(int direction, const void *buf,
                             const struct iovec *iov, int iovcnt,
                             uint64_t bytes);

#ifdef __cplusplus
}
#endif
#endif
