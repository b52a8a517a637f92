//===- record/fd_buffers.cpp - Memory a descriptor call reads or writes ---===//
//
// ThreadSanitizer's read/write interceptors (sanitizer_common_interceptors.inc)
// record the buffer a write-like call reads and the one a read-like call
// fills: a network service that recv()s into a buffer another thread is
// still parsing, or write()s one another thread is refilling, is a race it
// reports. fd_hooks.cpp records what a call does to its channel (the order
// of sends and receives); this file records what it does to the program's
// memory, for every call of fd_calls.def whether its descriptor is a
// channel or not: a send's bytes as reads in load_range's chunks, before
// the call (it reads them while it runs; after it they may be another
// request's), a receive's as writes of what it returned, after the call.
// Only with fd_buffers=1: bulk I/O would make a trace of every 8 bytes moved
// (pigz -p 2 on 5 MB: 18.5K events become 3.1M, analysis 0.09 s -> 44 s),
// and most of it is shared (buffer pools): a range event the analysis
// could take whole is what would make it the default.
//
#include "access_record.h"
#include "fd_call.h"

#include "racepredict/abi/runtime.h"

#include <errno.h>
#include <sys/uio.h>

namespace racepredict::rt {
namespace {

/// Records `bytes` of the piece at p (reads or writes), at most `left`;
/// returns how many it covered.
uint64_t recordPiece(MultiEventHook &h, int direction, const void *p,
                     uint64_t bytes, uint64_t left, uint32_t loc) {
  uint64_t n = bytes < left ? bytes : left;
  if (!p || !n)
    return n;
  if (direction == RP_FD_SEND)
    readChunks(h, p, n, loc);
  else
    wroteChunks(h, p, n, false, loc);
  return n;
}

} // namespace
} // namespace racepredict::rt

using namespace racepredict::rt;

extern "C" void __racepredict_fd_buffer(int direction, const void *buf,
                                        const struct iovec *iov, int iovcnt,
                                        uint64_t bytes) {
  if (!bytes || !__atomic_load_n(&g.initialized, __ATOMIC_ACQUIRE) ||
      !g.opts.fd_buffers || !tlsState)
    return;
  int saved = errno;
  uint32_t loc = __racepredict_callsite;
  MultiEventHook h{enter(kRecAccess)};
  if (h.ts) {
    if (buf) {
      recordPiece(h, direction, buf, bytes, bytes, loc);
    } else {
      uint64_t left = bytes;
      for (int i = 0; iov && i < iovcnt && left; ++i)
        left -= recordPiece(h, direction, iov[i].iov_base, iov[i].iov_len, left,
                            loc);
    }
  }
  h.finish();
  errno = saved;
}
