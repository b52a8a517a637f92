//===- record/string_read_hooks.cpp - strlen, strcmp and friends as reads -===//
//
// The pass rewrites the program's direct calls of these (hooks.def REWRITE)
// into __racepredict_<name>(args, loc). Each is recorded as the reads libc
// makes, byte by byte for the byte searches (access_record.h, readBytes),
// in load_range's chunks for memcmp and bcmp, as ThreadSanitizer's interceptors
// record them (sanitizer_common_interceptors.inc): a status line one thread
// writes while another strlen's or strcmp's it is a race TSan reports, and we
// recorded nothing. The bytes read are the ones the result depends on:
// up to the terminator, the first difference, the character found.
//
// The hook measures with the recording token held (it enters first), so no
// recorded write changes the bytes between the measuring and the recorded
// reads: the values the trace shows are the ones the result came from.
// strdup and strndup allocate through the malloc hook and copy as strcpy
// does (string_hooks.cpp).
//
#include "access_record.h"
#include "string_hooks.h"

#include "racepredict/abi/runtime.h"

#include <ctype.h>
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

/// The index of the first byte where a and b differ or end, within n
/// (n if none): strcmp and strncmp read up to and including it.
size_t compareSpan(const char *a, const char *b, size_t n, bool fold) {
  size_t i = 0;
  for (; i < n; ++i) {
    unsigned char x = a[i], y = b[i];
    if (fold) {
      x = static_cast<unsigned char>(tolower(x));
      y = static_cast<unsigned char>(tolower(y));
    }
    if (x != y || x == 0)
      break;
  }
  return i;
}

/// strcmp-like: reads both strings up to the first difference or end.
template <typename Compare>
int compareStrings(const char *a, const char *b, size_t n, bool fold,
                   uint32_t loc, Compare compare) {
  MultiEventHook h{enter(kRecAccess)};
  int r = compare();
  size_t i = compareSpan(a, b, n, fold);
  size_t len = i < n ? i + 1 : n;
  readBytes(h, a, len, loc);
  readBytes(h, b, len, loc);
  return h.finishWith(r);
}

/// memcmp-like: ThreadSanitizer reads both ranges whole (strict_memcmp).
int compareRanges(const void *a, const void *b, size_t n, uint32_t loc,
                  int (*compare)(const void *, const void *, size_t)) {
  MultiEventHook h{enter(kRecAccess)};
  int r = compare(a, b, n);
  readChunks(h, a, n, loc);
  readChunks(h, b, n, loc);
  return h.finishWith(r);
}

} // namespace
} // namespace racepredict::rt

using namespace racepredict::rt;

extern "C" {

size_t __racepredict_strlen(const char *s, uint32_t loc) {
  MultiEventHook h{enter(kRecAccess)};
  size_t n = strlen(s);
  readBytes(h, s, n + 1, loc);
  return h.finishWith(n);
}

size_t __racepredict_strnlen(const char *s, size_t max, uint32_t loc) {
  MultiEventHook h{enter(kRecAccess)};
  size_t n = strnlen(s, max);
  readBytes(h, s, n < max ? n + 1 : max, loc);
  return h.finishWith(n);
}

int __racepredict_strcmp(const char *a, const char *b, uint32_t loc) {
  return compareStrings(a, b, SIZE_MAX, false, loc,
                        [&] { return strcmp(a, b); });
}

int __racepredict_strncmp(const char *a, const char *b, size_t n,
                          uint32_t loc) {
  return compareStrings(a, b, n, false, loc, [&] { return strncmp(a, b, n); });
}

int __racepredict_strcasecmp(const char *a, const char *b, uint32_t loc) {
  return compareStrings(a, b, SIZE_MAX, true, loc,
                        [&] { return strcasecmp(a, b); });
}

int __racepredict_strncasecmp(const char *a, const char *b, size_t n,
                              uint32_t loc) {
  return compareStrings(a, b, n, true, loc,
                        [&] { return strncasecmp(a, b, n); });
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
  const char *r = strchr(s, c);
  readBytes(h, s, r ? r - s + 1 : strlen(s) + 1, loc);
  return h.finishWith(const_cast<char *>(r));
}

/// Reads the whole string: the last match is known only at its end.
char *__racepredict_strrchr(const char *s, int c, uint32_t loc) {
  MultiEventHook h{enter(kRecAccess)};
  const char *r = strrchr(s, c);
  readBytes(h, s, strlen(s) + 1, loc);
  return h.finishWith(const_cast<char *>(r));
}

/// The needle whole; the haystack up to the end of the match, or whole.
char *__racepredict_strstr(const char *s, const char *needle, uint32_t loc) {
  MultiEventHook h{enter(kRecAccess)};
  const char *r = strstr(s, needle);
  size_t k = strlen(needle);
  readBytes(h, s, r ? r - s + k : strlen(s) + 1, loc);
  readBytes(h, needle, k + 1, loc);
  return h.finishWith(const_cast<char *>(r));
}

void *__racepredict_memchr(const void *s, int c, size_t n, uint32_t loc) {
  MultiEventHook h{enter(kRecAccess)};
  const void *r = memchr(s, c, n);
  readBytes(h, s,
            r ? static_cast<const char *>(r) - static_cast<const char *>(s) + 1
              : n,
            loc);
  return h.finishWith(const_cast<void *>(r));
}

/// A new block (recorded by the malloc hook) and the copy into it.
char *__racepredict_strdup(const char *s, uint32_t loc) {
  auto *d = static_cast<char *>(__racepredict_malloc(strlen(s) + 1, loc));
  return d ? __racepredict_strcpy(d, s, loc) : d;
}

char *__racepredict_strndup(const char *s, size_t max, uint32_t loc) {
  size_t k = strnlen(s, max);
  auto *d = static_cast<char *>(__racepredict_malloc(k + 1, loc));
  if (!d)
    return d;
  MultiEventHook h{enter(kRecAccess)};
  size_t n = strnlen(s, k); // again, with the token held
  copyBytes(h, d, s, n, loc);
  setBytes(h, d + n, 0, 1, loc);
  return h.finishWith(d);
}

} // extern "C"
