//===- record/fortify_hooks.cpp - __memcpy_chk & co. (_FORTIFY_SOURCE) ----===//
//
// With -O2 -D_FORTIFY_SOURCE=2 (what distributions build with; Debian's
// clang does not fortify by default) glibc's headers turn a memcpy, strcpy
// or read whose destination size the compiler knows into __memcpy_chk,
// __strcpy_chk, __read_chk..., which check that size and then do the
// plain call's work inside libc, unseen: a fortified program's copies and
// reads were not recorded at all.
//
// The string and memory ones are rewritten by the pass (hooks.def REWRITE)
// like their plain forms: each checks as glibc does (__chk_fail, which
// aborts with "buffer overflow detected", when the destination is too
// small) and then does the plain call's work through the same hooks, so it
// is recorded exactly as the unfortified call. The descriptor reads are
// defined in the executable (like fd_interpose.c's read, which they call),
// since glibc's __read_chk calls its internal read, not the interposed one.
//
#include "string_hooks.h"

#include "racepredict/abi/runtime.h"

#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

extern "C" {

/// glibc: reports the overflow and aborts.
[[noreturn]] void __chk_fail(void);

void *__racepredict___memcpy_chk(void *dst, const void *src, size_t n,
                                 size_t dstlen, uint32_t loc) {
  if (n > dstlen)
    __chk_fail();
  __racepredict_memcpy(dst, const_cast<void *>(src), n, loc);
  return dst;
}

void *__racepredict___mempcpy_chk(void *dst, const void *src, size_t n,
                                  size_t dstlen, uint32_t loc) {
  if (n > dstlen)
    __chk_fail();
  __racepredict_memcpy(dst, const_cast<void *>(src), n, loc);
  return static_cast<char *>(dst) + n;
}

void *__racepredict___memmove_chk(void *dst, const void *src, size_t n,
                                  size_t dstlen, uint32_t loc) {
  if (n > dstlen)
    __chk_fail();
  __racepredict_memmove(dst, const_cast<void *>(src), n, loc);
  return dst;
}

void *__racepredict___memset_chk(void *dst, int c, size_t n, size_t dstlen,
                                 uint32_t loc) {
  if (n > dstlen)
    __chk_fail();
  __racepredict_memset(dst, static_cast<uint8_t>(c), n, loc);
  return dst;
}

char *__racepredict___strcpy_chk(char *dst, const char *src, size_t dstlen,
                                 uint32_t loc) {
  if (strlen(src) >= dstlen)
    __chk_fail();
  return __racepredict_strcpy(dst, src, loc);
}

char *__racepredict___stpcpy_chk(char *dst, const char *src, size_t dstlen,
                                 uint32_t loc) {
  if (strlen(src) >= dstlen)
    __chk_fail();
  return __racepredict_stpcpy(dst, src, loc);
}

char *__racepredict___strncpy_chk(char *dst, const char *src, size_t n,
                                  size_t dstlen, uint32_t loc) {
  if (n > dstlen)
    __chk_fail();
  return __racepredict_strncpy(dst, src, n, loc);
}

char *__racepredict___strcat_chk(char *dst, const char *src, size_t dstlen,
                                 uint32_t loc) {
  if (strlen(dst) + strlen(src) >= dstlen)
    __chk_fail();
  return __racepredict_strcat(dst, src, loc);
}

char *__racepredict___strncat_chk(char *dst, const char *src, size_t n,
                                  size_t dstlen, uint32_t loc) {
  if (strlen(dst) + strnlen(src, n) >= dstlen)
    __chk_fail();
  return __racepredict_strncat(dst, src, n, loc);
}

// Descriptor reads: the interposed read, pread, recv and recvfrom record
// the channel (fd_interpose.c).
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen) {
  if (n > buflen)
    __chk_fail();
  return read(fd, buf, n);
}

ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen) {
  if (n > buflen)
    __chk_fail();
  return pread(fd, buf, n, off);
}

ssize_t __pread64_chk(int fd, void *buf, size_t n, off_t off, size_t buflen) {
  if (n > buflen)
    __chk_fail();
  return pread64(fd, buf, n, off);
}

ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags) {
  if (n > buflen)
    __chk_fail();
  return recv(fd, buf, n, flags);
}

ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t buflen, int flags,
                       struct sockaddr *from, socklen_t *fromlen) {
  if (n > buflen)
    __chk_fail();
  return recvfrom(fd, buf, n, flags, from, fromlen);
}

} // extern "C"
