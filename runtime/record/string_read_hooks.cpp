//===- record/string_read_hooks.cpp - strlen, strcmp and friends as reads -===//
//
// The pass rewrites the program's direct calls of these (hooks.def REWRITE)
// into __racepredict_<name>(args, loc). Each is recorded as the reads libc
// makes, byte by byte for the byte scans (access_record.h, ByteScan), in
// load_range's chunks for memcmp and bcmp, as ThreadSanitizer's interceptors
// record them (sanitizer_common_interceptors.inc): a status line one thread
// writes while another strlen's or strcmp's it is a race TSan reports, and we
// recorded nothing. The bytes read are the ones the result depends on:
// up to the terminator, the first difference, the character found.
//
// A scan decides byte by byte whether to read on, from the bytes it read
// (ByteScan): recording, with the token held, that is libc's result; under
// replay, each byte read at its own turn, the call sees the writes the
// schedule puts between its bytes. strdup and strndup allocate through the
// malloc hook and copy as strcpy does (string_hooks.cpp).
//
#include "access_record.h"
#include "string_hooks.h"

#include "racepredict/abi/runtime.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

extern "C" {
/// alloc_hooks.cpp: the malloc hook (records the new block).
void *__racepredict_malloc(size_t n, uint32_t loc);
}

namespace racepredict::rt {
namespace {

/// strncmp-like (strcmp: n unbounded): both strings a byte of each at a
/// time, up to the first difference or end; the result is libc's own on
/// the last pair, which decides it (the bytes before are equal).
int compareStrings(const char *a, const char *b, size_t n, uint32_t loc,
                   int (*compare)(const char *, const char *, size_t)) {
  MultiEventHook h{enter(kRecAccess)};
  if (!h.ts) // not recording: libc's own scan
    return h.finishWith(compare(a, b, n));
  ByteScan scan{h, loc};
  for (size_t i = 0; i < n; ++i) {
    char last[2][2] = {{static_cast<char>(scan.read(a + i)), 0},
                       {static_cast<char>(scan.read(b + i)), 0}};
    // Equal bytes decide nothing but the end (libc is asked only otherwise:
    // a call per byte cost 7% of a string-heavy recording).
    int r = last[0][0] == last[1][0] ? 0 : compare(last[0], last[1], 2);
    if (!scan.onward(r || !last[0][0], i, n))
      return h.finishWith(r);
  }
  return h.finishWith(0);
}

/// memcmp-like: ThreadSanitizer reads both ranges whole (strict_memcmp).
/// No byte decides whether to read on, so the result is taken first.
int compareRanges(const void *a, const void *b, size_t n, uint32_t loc,
                  int (*compare)(const void *, const void *, size_t)) {
  MultiEventHook h{enter(kRecAccess)};
  int r = compare(a, b, n);
  readChunks(h, a, n, loc);
  readChunks(h, b, n, loc);
  return h.finishWith(r);
}

/// strnlen: the bytes up to the terminator, at most max.
size_t scanLength(ByteScan &scan, const char *s, size_t max) {
  size_t n = 0;
  while (n < max && scan.onward(!scan.read(s + n), n, max))
    ++n;
  return n;
}

} // namespace
} // namespace racepredict::rt

using namespace racepredict::rt;

extern "C" {

size_t __racepredict_strnlen(const char *s, size_t max, uint32_t loc) {
  MultiEventHook h{enter(kRecAccess)};
  if (!h.ts)
    return h.finishWith(strnlen(s, max));
  ByteScan scan{h, loc};
  return h.finishWith(scanLength(scan, s, max));
}

size_t __racepredict_strlen(const char *s, uint32_t loc) {
  return __racepredict_strnlen(s, SIZE_MAX, loc);
}

int __racepredict_strcmp(const char *a, const char *b, uint32_t loc) {
  return compareStrings(a, b, SIZE_MAX, loc, strncmp);
}

int __racepredict_strncmp(const char *a, const char *b, size_t n,
                          uint32_t loc) {
  return compareStrings(a, b, n, loc, strncmp);
}

int __racepredict_strcasecmp(const char *a, const char *b, uint32_t loc) {
  return compareStrings(a, b, SIZE_MAX, loc, strncasecmp);
}

int __racepredict_strncasecmp(const char *a, const char *b, size_t n,
                              uint32_t loc) {
  return compareStrings(a, b, n, loc, strncasecmp);
}

int __racepredict_memcmp(const void *a, const void *b, size_t n, uint32_t loc) {
  return compareRanges(a, b, n, loc, memcmp);
}

/// What clang makes of a memcmp whose result is only compared with 0.
int __racepredict_bcmp(const void *a, const void *b, size_t n, uint32_t loc) {
  return compareRanges(a, b, n, loc, bcmp);
}

/// Reads up to the character found, or the whole string and its end.
char *__racepredict_strchr(const char *s, int c, uint32_t loc) {
  MultiEventHook h{enter(kRecAccess)};
  if (!h.ts)
    return h.finishWith(const_cast<char *>(strchr(s, c)));
  ByteScan scan{h, loc};
  for (size_t i = 0;; ++i) {
    char byte = static_cast<char>(scan.read(s + i));
    bool found = byte == static_cast<char>(c);
    if (!scan.onward(found || !byte, i, SIZE_MAX))
      return h.finishWith(const_cast<char *>(found ? s + i : nullptr));
  }
}

/// Reads the whole string: the last match is known only at its end.
char *__racepredict_strrchr(const char *s, int c, uint32_t loc) {
  MultiEventHook h{enter(kRecAccess)};
  if (!h.ts)
    return h.finishWith(const_cast<char *>(strrchr(s, c)));
  ByteScan scan{h, loc};
  const char *last = nullptr;
  for (size_t i = 0;; ++i) {
    char byte = static_cast<char>(scan.read(s + i));
    if (byte == static_cast<char>(c))
      last = s + i;
    if (!scan.onward(!byte, i, SIZE_MAX))
      return h.finishWith(const_cast<char *>(last));
  }
}

/// The needle whole, then the haystack up to the end of the first match,
/// or whole. A match is checked as its last byte is read, against the
/// bytes the scan read before it, in memory (unchanged while recording).
char *__racepredict_strstr(const char *s, const char *needle, uint32_t loc) {
  MultiEventHook h{enter(kRecAccess)};
  if (!h.ts)
    return h.finishWith(const_cast<char *>(strstr(s, needle)));
  ByteScan scan{h, loc};
  size_t k = scanLength(scan, needle, SIZE_MAX);
  if (!k)
    return h.finishWith(const_cast<char *>(s));
  for (size_t i = 0;; ++i) {
    bool end = !scan.read(s + i);
    bool match = !end && i + 1 >= k && !memcmp(s + i + 1 - k, needle, k);
    if (!scan.onward(end || match, i, SIZE_MAX))
      return h.finishWith(const_cast<char *>(match ? s + i + 1 - k : nullptr));
  }
}

void *__racepredict_memchr(const void *s, int c, size_t n, uint32_t loc) {
  MultiEventHook h{enter(kRecAccess)};
  if (!h.ts)
    return h.finishWith(const_cast<void *>(memchr(s, c, n)));
  ByteScan scan{h, loc};
  auto *p = static_cast<const unsigned char *>(s);
  for (size_t i = 0; i < n; ++i)
    if (!scan.onward(scan.read(p + i) == static_cast<unsigned char>(c), i, n))
      return h.finishWith(const_cast<unsigned char *>(p + i));
  return h.finishWith(static_cast<void *>(nullptr));
}

/// A new block (recorded by the malloc hook) and the copy into it, up to
/// and with the terminator or the max-th byte, within the block (measured
/// before: under replay the bytes copied may differ).
char *__racepredict_strndup(const char *s, size_t max, uint32_t loc) {
  size_t k = strnlen(s, max);
  auto *d = static_cast<char *>(__racepredict_malloc(k + 1, loc));
  if (!d)
    return d;
  MultiEventHook h{enter(kRecAccess)};
  ByteScan scan{h, loc};
  size_t end = k < max ? k + 1 : k;
  for (size_t i = 0; i < end; ++i)
    if (!scan.onward(!scan.copy(d + i, s + i), i, end))
      return h.finishWith(d);
  setBytes(h, d + k, 0, 1, loc); // max reached, or the string grew
  return h.finishWith(d);
}

char *__racepredict_strdup(const char *s, uint32_t loc) {
  return __racepredict_strndup(s, SIZE_MAX, loc);
}

} // extern "C"
