//===- record/string_hooks.cpp - strcpy and friends on shared buffers -----===//
//
// The pass rewrites the program's direct calls of these (hooks.def REWRITE)
// into __racepredict_<name>(args, loc). Each does what libc does, byte by
// byte through the recorder (access_record.h, readBytes), so the bytes it
// reads and writes are recorded (ThreadSanitizer intercepts them too: a
// status line strcpy'd by one thread and read by another is a race it
// reports). The hook measures the strings with the recording token held:
// no recorded write changes them between the measuring and the copy, which
// therefore copies what libc would, and the trace shows the values moved.
//
#include "string_hooks.h"

#include "access_record.h"

#include <stddef.h>
#include <string.h>

using namespace racepredict::rt;

extern "C" {

char *__racepredict_strcpy(char *dst, const char *src, uint32_t loc) {
  MultiEventHook h{enter(kRecAccess)};
  copyBytes(h, dst, src, strlen(src) + 1, loc);
  return h.finishWith(dst);
}

char *__racepredict_stpcpy(char *dst, const char *src, uint32_t loc) {
  MultiEventHook h{enter(kRecAccess)};
  size_t n = strlen(src);
  copyBytes(h, dst, src, n + 1, loc);
  return h.finishWith(dst + n);
}

/// At most n bytes of src; the rest of the n is zero-filled.
char *__racepredict_strncpy(char *dst, const char *src, size_t n,
                            uint32_t loc) {
  MultiEventHook h{enter(kRecAccess)};
  size_t k = strnlen(src, n);
  copyBytes(h, dst, src, k, loc);
  setBytes(h, dst + k, 0, n - k, loc);
  return h.finishWith(dst);
}

/// The scan for dst's end is not recorded (as a read it would only add
/// reads of bytes the copy does not change).
char *__racepredict_strcat(char *dst, const char *src, uint32_t loc) {
  MultiEventHook h{enter(kRecAccess)};
  copyBytes(h, dst + strlen(dst), src, strlen(src) + 1, loc);
  return h.finishWith(dst);
}

/// At most n bytes of src, then the terminator.
char *__racepredict_strncat(char *dst, const char *src, size_t n,
                            uint32_t loc) {
  MultiEventHook h{enter(kRecAccess)};
  char *end = dst + strlen(dst);
  size_t k = strnlen(src, n);
  copyBytes(h, end, src, k, loc);
  setBytes(h, end + k, 0, 1, loc);
  return h.finishWith(dst);
}

} // extern "C"
