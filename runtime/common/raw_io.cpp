//===- common/raw_io.cpp - Allocation-free output for the runtime --------===//
#include "raw_io.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace racepredict::rt {

RawBuf &RawBuf::str(const char *s) {
  while (*s && len + 1 < sizeof(data))
    data[len++] = *s++;
  return *this;
}

RawBuf &RawBuf::num(uint64_t v) {
  char tmp[24];
  int n = 0;
  do {
    tmp[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v);
  while (n && len + 1 < sizeof(data))
    data[len++] = tmp[--n];
  return *this;
}

RawBuf &RawBuf::hex(uint64_t v) {
  char tmp[20];
  int n = 0;
  do {
    tmp[n++] = "0123456789abcdef"[v & 15];
    v >>= 4;
  } while (v);
  str("0x");
  while (n && len + 1 < sizeof(data))
    data[len++] = tmp[--n];
  return *this;
}

const char *RawBuf::cstr() {
  data[len] = 0;
  return data;
}

bool writeAll(int fd, const void *p, size_t n) {
  const char *c = static_cast<const char *>(p);
  while (n) {
    // A raw system call: the write(2) the executable defines records what
    // it moves (record/fd_hooks.cpp), the runtime's own files included.
    long w = syscall(SYS_write, fd, c, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return false;
    c += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

void report(const char *msg) {
  RawBuf b;
  b.str("racepredict: ").str(msg).str("\n");
  writeAll(2, b.data, b.len);
}

void fatal(const char *msg) {
  report(msg);
  _exit(3);
}

size_t rawStrlen(const char *s) {
  size_t n = 0;
  while (s[n])
    ++n;
  return n;
}

void rawCopy(char *dst, const char *src, size_t cap) {
  size_t i = 0;
  for (; src[i] && i + 1 < cap; ++i)
    dst[i] = src[i];
  dst[i] = 0;
}

bool rawStreq(const char *a, const char *b, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (a[i] != b[i])
      return false;
  return b[n] == 0;
}

void *rawAlloc(size_t bytes) {
  void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    fatal("out of memory (mmap failed)");
  return p;
}

void rawFree(void *p, size_t bytes) { munmap(p, bytes); }

bool procStatusField(const char *key, char *out, size_t cap) {
  long fd =
      syscall(SYS_openat, AT_FDCWD, "/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0 || cap == 0)
    return false;
  char buf[4096];
  long n = syscall(SYS_read, fd, buf, sizeof buf - 1);
  syscall(SYS_close, fd);
  if (n <= 0)
    return false;
  buf[n] = 0;
  size_t keyLen = rawStrlen(key);
  // Fields start lines: the key at the start of the buffer or after '\n'.
  for (char *p = buf; *p; ++p) {
    if ((p != buf && p[-1] != '\n') || !rawStreq(p, key, keyLen))
      continue;
    const char *q = p + keyLen;
    while (*q == ' ' || *q == '\t')
      ++q;
    size_t i = 0;
    for (; i + 1 < cap && *q && *q != '\n'; ++i)
      out[i] = *q++;
    out[i] = 0;
    return true;
  }
  return false;
}

} // namespace racepredict::rt
