//===- record/fd_channels.cpp - What a file descriptor reads and writes ---===//
#include "fd_channels.h"
#include "trace_names.h"

#include "../common/raw_io.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace racepredict::rt {
namespace {

// Channel keys: a kind in the top bits (no address reaches them), so that a
// pipe, a socket and a file never share one.
constexpr uint64_t kPipeTag = 1ull << 60, kUnixTag = 2ull << 60,
                   kTcpTag = 3ull << 60, kFileTag = 4ull << 60;
constexpr uint64_t kLow = (1ull << 60) - 1;

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

// --- the channel table and the names of its channels ----------------------

constexpr uint32_t kChannels = 4096;
StreamChannel gChannels[kChannels];

/// The slot of `key` (null when the table is full); `fresh` says whether
/// this call created it (the caller then names the channel).
StreamChannel *slot(uint64_t key, bool *fresh) {
  *fresh = false;
  uint32_t h = static_cast<uint32_t>(mix(0, key)) & (kChannels - 1);
  for (uint32_t n = 0; n < kChannels; ++n, h = (h + 1) & (kChannels - 1)) {
    StreamChannel &c = gChannels[h];
    uint64_t k = __atomic_load_n(&c.key, __ATOMIC_ACQUIRE);
    if (k == 0 &&
        __atomic_compare_exchange_n(&c.key, &k, key, false, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
      *fresh = true;
      return &c;
    }
    if (k == key)
      return &c;
  }
  return nullptr;
}

/// Names channel `key` in the trace the first time it is seen; `name`
/// writes the name into a buffer (a file's path costs a readlink).
template <typename F> void nameChannel(uint64_t key, F name) {
  bool fresh;
  if (slot(key, &fresh) && fresh &&
      __atomic_load_n(&g.initialized, __ATOMIC_ACQUIRE)) {
    RawBuf b;
    name(b);
    // One word of the text format: blanks and '#' (a file's) become '_'.
    for (size_t i = 0; i < b.len; ++i) {
      auto c = static_cast<unsigned char>(b.data[i]);
      if (c <= ' ' || c == '#' || c == 0x7f)
        b.data[i] = '_';
    }
    writeName(RP_NS_CHANNEL, key, b.data, b.len);
  }
}

// --- sockets
// ------------------------------------------------------------------

/// The inode of the Unix socket connected to socket `ino` (sock_diag), 0
/// if unknown. Raw system calls: the descriptor hooks must not see these.
uint64_t unixPeer(uint64_t ino) {
  int nl = static_cast<int>(syscall(
      SYS_socket, AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG));
  if (nl < 0)
    return 0;
  struct {
    nlmsghdr nlh;
    unix_diag_req req;
  } q;
  memset(&q, 0, sizeof q);
  q.nlh.nlmsg_len = sizeof q;
  q.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  q.nlh.nlmsg_flags = NLM_F_REQUEST;
  q.req.sdiag_family = AF_UNIX;
  q.req.udiag_ino = static_cast<uint32_t>(ino);
  q.req.udiag_states = ~0u;
  q.req.udiag_show = UDIAG_SHOW_PEER;
  q.req.udiag_cookie[0] = q.req.udiag_cookie[1] = ~0u;
  uint64_t peer = 0;
  alignas(nlmsghdr) char buf[1024];
  if (syscall(SYS_sendto, nl, &q, sizeof q, 0, nullptr, 0) ==
      static_cast<long>(sizeof q)) {
    long n = syscall(SYS_recvfrom, nl, buf, sizeof buf, 0, nullptr, nullptr);
    auto *h = reinterpret_cast<nlmsghdr *>(buf);
    if (n >= static_cast<long>(NLMSG_LENGTH(sizeof(unix_diag_msg))) &&
        NLMSG_OK(h, static_cast<unsigned>(n)) &&
        h->nlmsg_type == SOCK_DIAG_BY_FAMILY) {
      auto *d = static_cast<unix_diag_msg *>(NLMSG_DATA(h));
      auto *a = reinterpret_cast<rtattr *>(d + 1);
      int len = static_cast<int>(h->nlmsg_len - NLMSG_LENGTH(sizeof *d));
      for (; RTA_OK(a, len); a = RTA_NEXT(a, len))
        if (a->rta_type == UNIX_DIAG_PEER)
          memcpy(&peer, RTA_DATA(a), sizeof(uint32_t));
    }
  }
  syscall(SYS_close, nl);
  return peer;
}

/// Appends `ip:port` of an IPv4 or IPv6 address; false for another family.
bool putAddress(RawBuf &b, const sockaddr_storage &s, uint64_t *hash) {
  char text[INET6_ADDRSTRLEN] = "";
  uint16_t port;
  if (s.ss_family == AF_INET) {
    auto &a = reinterpret_cast<const sockaddr_in &>(s);
    inet_ntop(AF_INET, &a.sin_addr, text, sizeof text);
    port = ntohs(a.sin_port);
    *hash = mix(mix(*hash, a.sin_addr.s_addr), port);
  } else if (s.ss_family == AF_INET6) {
    auto &a = reinterpret_cast<const sockaddr_in6 &>(s);
    inet_ntop(AF_INET6, &a.sin6_addr, text, sizeof text);
    port = ntohs(a.sin6_port);
    uint64_t w[2];
    memcpy(w, &a.sin6_addr, sizeof w);
    *hash = mix(mix(mix(*hash, w[0]), w[1]), port);
  } else {
    return false;
  }
  b.str(text).str(":").num(port);
  return true;
}

/// A connected stream socket's two channels, cached by inode (inodes of
/// sockets are not reused while the process runs).
struct SocketEntry {
  uint64_t ino; ///< 0: free
  uint64_t sendKey, recvKey;
};
constexpr uint32_t kSockets = 1024;
SocketEntry gSockets[kSockets];
volatile uint32_t gSocketLock;

bool socketChannels(int fd, uint64_t ino, FdChannels *out) {
  uint32_t h = static_cast<uint32_t>(mix(1, ino)) & (kSockets - 1);
  spinLock(&gSocketLock);
  for (uint32_t n = 0; n < kSockets && gSockets[h].ino;
       ++n, h = (h + 1) & (kSockets - 1))
    if (gSockets[h].ino == ino) {
      *out = {ChannelKind::Stream, gSockets[h].sendKey, gSockets[h].recvKey};
      spinUnlock(&gSocketLock);
      return true;
    }
  spinUnlock(&gSocketLock);
  int type = 0, domain = 0;
  socklen_t len = sizeof type;
  if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 ||
      type != SOCK_STREAM)
    return false; // datagrams keep no byte order
  len = sizeof domain;
  if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) != 0)
    return false;
  FdChannels c{ChannelKind::Stream, 0, 0};
  RawBuf sendName, recvName;
  if (domain == AF_UNIX) {
    uint64_t peer = unixPeer(ino);
    if (!peer)
      return false; // not connected (yet)
    c.sendKey = kUnixTag | (ino & kLow);
    c.recvKey = kUnixTag | (peer & kLow);
    sendName.str("unix:[").num(ino).str("->").num(peer).str("]");
    recvName.str("unix:[").num(peer).str("->").num(ino).str("]");
  } else {
    sockaddr_storage self, peer;
    socklen_t ls = sizeof self, lp = sizeof peer;
    if (getsockname(fd, reinterpret_cast<sockaddr *>(&self), &ls) != 0 ||
        getpeername(fd, reinterpret_cast<sockaddr *>(&peer), &lp) != 0)
      return false;
    uint64_t hs = 0, hp = 0;
    RawBuf a, b;
    if (!putAddress(a, self, &hs) || !putAddress(b, peer, &hp))
      return false;
    c.sendKey = kTcpTag | (mix(hs, hp) & kLow);
    c.recvKey = kTcpTag | (mix(hp, hs) & kLow);
    sendName.str("tcp:").str(a.cstr()).str("->").str(b.cstr());
    recvName.str("tcp:").str(b.cstr()).str("->").str(a.cstr());
  }
  nameChannel(c.sendKey, [&](RawBuf &b) { b.str(sendName.cstr()); });
  nameChannel(c.recvKey, [&](RawBuf &b) { b.str(recvName.cstr()); });
  spinLock(&gSocketLock);
  for (uint32_t n = 0; n < kSockets; ++n, h = (h + 1) & (kSockets - 1))
    if (!gSockets[h].ino || gSockets[h].ino == ino) {
      gSockets[h] = {ino, c.sendKey, c.recvKey};
      break;
    }
  spinUnlock(&gSocketLock);
  *out = c;
  return true;
}

} // namespace

FdChannels channelsOf(int fd) {
  FdChannels none{ChannelKind::None, 0, 0};
  struct stat st;
  if (fstat(fd, &st) != 0)
    return none;
  if (S_ISFIFO(st.st_mode)) {
    uint64_t key = kPipeTag | (mix(st.st_dev, st.st_ino) & kLow);
    nameChannel(key,
                [&](RawBuf &b) { b.str("pipe:[").num(st.st_ino).str("]"); });
    return {ChannelKind::Stream, key, key};
  }
  if (S_ISSOCK(st.st_mode)) {
    FdChannels c;
    return socketChannels(fd, st.st_ino, &c) ? c : none;
  }
  if (S_ISREG(st.st_mode)) {
    uint64_t key = kFileTag | (mix(st.st_dev, st.st_ino) & kLow);
    nameChannel(key, [fd](RawBuf &b) {
      RawBuf link;
      link.str("/proc/self/fd/").num(static_cast<uint64_t>(fd));
      char path[400];
      ssize_t n = readlink(link.cstr(), path, sizeof path - 1);
      path[n > 0 ? n : 0] = 0;
      b.str("file:").str(n > 0 ? path : "?");
    });
    return {ChannelKind::File, key, key};
  }
  return none;
}

StreamChannel *streamChannel(uint64_t key) {
  bool fresh;
  return slot(key, &fresh);
}

LockResult lockChannel(ChannelLock *l, bool nonblocking) {
  int me = currentTid();
  if (__atomic_load_n(&l->owner, __ATOMIC_RELAXED) == me)
    return LockResult::Mine;
  uint32_t free = 0;
  if (!__atomic_compare_exchange_n(&l->word, &free, 1, false, __ATOMIC_ACQUIRE,
                                   __ATOMIC_RELAXED)) {
    if (nonblocking)
      return LockResult::Busy;
    while (__atomic_exchange_n(&l->word, 2, __ATOMIC_ACQUIRE) != 0)
      syscall(SYS_futex, &l->word, FUTEX_WAIT_PRIVATE, 2, nullptr, nullptr, 0);
  }
  __atomic_store_n(&l->owner, me, __ATOMIC_RELAXED);
  return LockResult::Taken;
}

void unlockChannel(ChannelLock *l) {
  __atomic_store_n(&l->owner, 0, __ATOMIC_RELAXED);
  if (__atomic_exchange_n(&l->word, 0, __ATOMIC_RELEASE) == 2)
    syscall(SYS_futex, &l->word, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

} // namespace racepredict::rt
