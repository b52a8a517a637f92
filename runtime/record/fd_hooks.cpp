//===- record/fd_hooks.cpp - Sends and receives on pipes, sockets, files --===//
//
// TSan orders a write to a descriptor before the read that returns its
// data. Here every read or write of a channel (fd_channels.h) records which
// bytes it moved: `send c o n` / `recv c o n`, bytes [o, o+n) of channel c,
// and the analysis orders a receive after the sends of its bytes
// (analysis/channel_order.h, docs/semantics.md). The offsets must be the
// kernel's:
//
// - a stream's sends are recorded before the real call (its bytes can be
//   received only after it, hence after the record), holding the channel's
//   send lock from the record to the end of the call, so that the kernel
//   takes them in the order they are recorded; a write that moves fewer
//   bytes than it asked for leaves the next send at its real end, and the
//   analysis takes the newest send of a byte;
// - a stream's receives are recorded after the call, holding the
//   channel's receive lock across it, for the same reason;
// - a regular file's reads and writes do not wait for another thread: they
//   are made with the recording token held, their offset taken from the
//   descriptor's position (or pread/pwrite's), so no other recorded event
//   comes between the call and its record.
//
// A nonblocking call on a stream another thread is using (blocked in the
// kernel, typically) fails with EAGAIN rather than wait for it.
//
#include "fd_call.h"
#include "fd_channels.h"

#include "racepredict/abi/runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

namespace racepredict::rt {
namespace {

struct CallState {
  StreamChannel *stream; ///< a stream call, else null
  ThreadState *ts;       ///< a file call holds the token until its end
  uint64_t key;
  int64_t offset; ///< where the bytes are (a stream send: its record's)
  uint32_t loc;
  int fd;
  uint8_t direction;
  bool append; ///< a write to a file opened O_APPEND
};
static_assert(sizeof(CallState) <= sizeof(rp_fd_call), "rp_fd_call too small");

int beginFile(CallState &s, int64_t offset) {
  ThreadState *ts = enter(kRecSync);
  if (!ts)
    return 0;
  s.ts = ts;
  s.offset = offset >= 0 ? offset : lseek(s.fd, 0, SEEK_CUR);
  s.append = s.direction == RP_FD_SEND && offset < 0 &&
             (fcntl(s.fd, F_GETFL) & O_APPEND);
  return 1;
}

int beginStream(CallState &s, uint64_t bytes, bool nonblocking) {
  StreamChannel *ch = streamChannel(s.key);
  if (!ch || __atomic_load_n(&ch->lost, __ATOMIC_RELAXED))
    return 0;
  bool send = s.direction == RP_FD_SEND;
  unsigned kind = send ? RP_SEND : RP_RECV;
  nonblocking = nonblocking || (fcntl(s.fd, F_GETFL) & O_NONBLOCK);
  preBlock(reinterpret_cast<void *>(s.key), kind, s.loc, false);
  switch (lockChannel(send ? &ch->sendLock : &ch->recvLock, nonblocking)) {
  case LockResult::Taken:
    break;
  case LockResult::Busy:
    postBlock(0);
    return -1;
  case LockResult::Mine: // a signal handler interrupted this thread's call
    postBlock(0);
    __atomic_store_n(&ch->lost, 1, __ATOMIC_RELAXED);
    return 0;
  }
  s.stream = ch;
  if (!send) {
    beforeBlocking();
    return 1;
  }
  s.offset = static_cast<int64_t>(ch->sent);
  uint64_t ops[3] = {s.key, ch->sent, bytes};
  if (ThreadState *ts = enter(kRecSync)) {
    if (!stopped())
      recordSimple(ts, kind, s.loc, ops, 3);
    leaveToBlock(ts);
  } else {
    beforeBlocking();
  }
  return 1;
}

} // namespace
} // namespace racepredict::rt

using namespace racepredict::rt;

extern "C" {

int __racepredict_fd_begin(rp_fd_call *c, int fd, int direction, uint64_t bytes,
                           int64_t offset, int nonblocking) {
  // The trace itself (trace_writer.cpp writes it with writev) is no channel.
  if (!__atomic_load_n(&g.initialized, __ATOMIC_ACQUIRE) || !tlsState ||
      fd == g.fd)
    return 0;
  int saved = errno;
  auto &s = *reinterpret_cast<CallState *>(c);
  s = CallState{nullptr,
                nullptr,
                0,
                -1,
                __racepredict_callsite,
                fd,
                static_cast<uint8_t>(direction),
                false};
  FdChannels ch = channelsOf(fd);
  s.key = direction == RP_FD_SEND ? ch.sendKey : ch.recvKey;
  int r = ch.kind == ChannelKind::File ? beginFile(s, offset)
          : ch.kind == ChannelKind::Stream && bytes > 0
              ? beginStream(s, bytes, nonblocking)
              : 0;
  errno = r < 0 ? EAGAIN : saved;
  return r;
}

ssize_t __racepredict_fd_end(rp_fd_call *c, ssize_t result) {
  int saved = errno;
  auto &s = *reinterpret_cast<CallState *>(c);
  bool send = s.direction == RP_FD_SEND;
  unsigned kind = send ? RP_SEND : RP_RECV;
  if (s.ts) { // a file: the token is still held
    if (result > 0 && s.offset >= 0 && !stopped()) {
      int64_t off = s.append ? lseek(s.fd, 0, SEEK_CUR) - result : s.offset;
      uint64_t ops[3] = {s.key, static_cast<uint64_t>(off),
                         static_cast<uint64_t>(result)};
      recordSimple(s.ts, kind, s.loc, ops, 3);
    }
    leave(s.ts);
  } else if (StreamChannel *ch = s.stream) {
    postBlock(0);
    if (send) {
      ch->sent = static_cast<uint64_t>(s.offset) + (result > 0 ? result : 0);
    } else if (result > 0) {
      uint64_t ops[3] = {s.key, ch->received, static_cast<uint64_t>(result)};
      ch->received += static_cast<uint64_t>(result);
      recordSync(kind, s.loc, ops, 3);
    }
    unlockChannel(send ? &ch->sendLock : &ch->recvLock);
  }
  errno = saved;
  return result;
}

} // extern "C"
