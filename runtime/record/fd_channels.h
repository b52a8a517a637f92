//===- record/fd_channels.h - What a file descriptor reads and writes -----===//
//
// The channel of a descriptor (docs/semantics.md, Channels; fd_hooks.cpp
// records its sends and receives): a pipe or FIFO (one channel, its inode),
// a connected stream socket (two: what it sends is what its peer
// receives; a Unix socket's peer is asked of the kernel's sock_diag, a TCP
// connection is named by its two addresses), a regular file (its device
// and inode; bytes are numbered by file offset). Anything else (a
// terminal, /dev/null, a datagram socket) is no channel.
//
#pragma once

#include "state.h"

namespace racepredict::rt {

enum class ChannelKind : uint8_t { None, Stream, File };

struct FdChannels {
  ChannelKind kind;
  uint64_t sendKey; ///< the channel a write to the descriptor feeds
  uint64_t recvKey; ///< the channel a read from it drains
};

/// What `fd` is now (descriptors are reused: asked at every call).
FdChannels channelsOf(int fd);

/// A lock the recorder holds across a real send (or receive) of a stream,
/// so that the kernel takes the channel's bytes in the order their events
/// are recorded: a futex word and its owner (a signal handler writing to
/// the channel its thread is writing to must not wait for itself).
struct ChannelLock {
  uint32_t word; ///< 0 free, 1 taken, 2 taken with waiters
  int owner;
};
enum class LockResult { Taken, Mine, Busy };
/// Takes `l`, unless this thread holds it already (Mine) or, `nonblocking`,
/// another one does (Busy).
LockResult lockChannel(ChannelLock *l, bool nonblocking);
void unlockChannel(ChannelLock *l);

/// A stream channel: the offsets of the next bytes sent and received.
struct StreamChannel {
  uint64_t key; ///< 0: a free slot
  uint64_t sent, received;
  ChannelLock sendLock, recvLock;
  /// Bytes went through unrecorded (a signal handler wrote while its
  /// thread was writing): the offsets no longer match, nothing more of the
  /// channel is recorded.
  uint32_t lost;
};
/// The state of stream channel `key`, created on first use (null when the
/// table is full: the channel is then not recorded).
StreamChannel *streamChannel(uint64_t key);

} // namespace racepredict::rt
