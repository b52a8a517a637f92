//===- common/raw_io.h - Allocation-free output for the runtime ----------===//
//
// The runtime must not call stdio, malloc or anything that can re-enter the
// hooks, so messages are formatted into stack buffers and written with
// write(2).
//
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace racepredict::rt {

/// A fixed-capacity string builder on the stack; silently truncates.
struct RawBuf {
  char data[512];
  size_t len = 0;
  RawBuf &str(const char *s);
  RawBuf &num(uint64_t v);
  RawBuf &hex(uint64_t v);
  const char *cstr();
};

/// Writes all of [p, p+n) to fd, retrying on EINTR and short writes.
bool writeAll(int fd, const void *p, size_t n);
/// "racepredict: <msg>\n" on stderr.
void report(const char *msg);
/// Reports and terminates with _exit(3): no atexit handlers, no flush.
[[noreturn]] void fatal(const char *msg);

size_t rawStrlen(const char *s);
/// Copies the string `src` into dst[0..cap), always terminated.
void rawCopy(char *dst, const char *src, size_t cap);
bool rawStreq(const char *a, const char *b, size_t n);

/// The value of field `key` ("TracerPid:") of /proc/self/status, blanks
/// skipped, copied into out[0..cap): false if the file or the field is
/// missing. Raw system calls: the interposed read(2) would record.
bool procStatusField(const char *key, char *out, size_t cap);

/// Anonymous memory straight from the kernel (the hooks may not malloc).
void *rawAlloc(size_t bytes);
void rawFree(void *p, size_t bytes);

} // namespace racepredict::rt
