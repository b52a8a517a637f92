//===- record/string_hooks.cpp - strcpy and friends on shared buffers -----===//
//
// The pass rewrites the program's direct calls of these (hooks.def REWRITE)
// into __racepredict_<name>(args, loc). Each does what libc does through
// the range hooks, so the bytes it reads and writes are recorded chunk by
// chunk like a memcpy's (ThreadSanitizer intercepts them too: a status
// line strcpy'd by one thread and read by another is a race it reports).
// The lengths are measured first, natively: the copy then records the
// values it moves, which is what the trace must show.
//
#include "racepredict/abi/runtime.h"

#include <stddef.h>
#include <string.h>

extern "C" {

char *__racepredict_strcpy(char *dst, const char *src, uint32_t loc) {
  __racepredict_memcpy(dst, const_cast<char *>(src), strlen(src) + 1, loc);
  return dst;
}

char *__racepredict_stpcpy(char *dst, const char *src, uint32_t loc) {
  size_t n = strlen(src);
  __racepredict_memcpy(dst, const_cast<char *>(src), n + 1, loc);
  return dst + n;
}

/// At most n bytes of src; the rest of the n is zero-filled.
char *__racepredict_strncpy(char *dst, const char *src, size_t n,
                            uint32_t loc) {
  size_t k = strnlen(src, n);
  __racepredict_memcpy(dst, const_cast<char *>(src), k, loc);
  __racepredict_memset(dst + k, 0, n - k, loc);
  return dst;
}

/// The scan for dst's end is not recorded (as a read it would only add
/// reads of bytes the copy does not change).
char *__racepredict_strcat(char *dst, const char *src, uint32_t loc) {
  __racepredict_memcpy(dst + strlen(dst), const_cast<char *>(src),
                       strlen(src) + 1, loc);
  return dst;
}

} // extern "C"
