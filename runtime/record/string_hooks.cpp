//===- record/string_hooks.cpp - strcpy and friends on shared buffers -----===//
//
// The pass rewrites the program's direct calls of these (hooks.def REWRITE)
// into __racepredict_<name>(args, loc). Each does what libc does, byte by
// byte through the recorder (access_record.h, ByteScan), so the bytes it
// reads and writes are recorded (ThreadSanitizer intercepts them too: a
// status line strcpy'd by one thread and read by another is a race it
// reports). A copy decides after each byte whether to go on (ByteScan):
// recording, with the token held, it copies what libc would, and the trace
// shows the values moved; under replay it copies what the schedule's
// writes between its bytes left.
//
#include "string_hooks.h"

#include "access_record.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

using namespace racepredict::rt;

namespace {

/// Copies src up to and with its terminator, or its first max bytes, to
/// dst, deciding after each byte whether to copy on (ByteScan); returns
/// the number of bytes copied before the terminator.
size_t copyString(MultiEventHook &h, char *dst, const char *src, size_t max,
                  uint32_t loc) {
  ByteScan scan{h, loc};
  size_t i = 0;
  while (i < max && scan.onward(!scan.copy(dst + i, src + i), i, max))
    ++i;
  return i;
}

} // namespace

extern "C" {

char *__racepredict_strcpy(char *dst, const char *src, uint32_t loc) {
  MultiEventHook h{enter(kRecAccess)};
  copyString(h, dst, src, SIZE_MAX, loc);
  return h.finishWith(dst);
}

char *__racepredict_stpcpy(char *dst, const char *src, uint32_t loc) {
  MultiEventHook h{enter(kRecAccess)};
  size_t n = copyString(h, dst, src, SIZE_MAX, loc);
  return h.finishWith(dst + n);
}

/// At most n bytes of src; the rest of the n is zero-filled.
char *__racepredict_strncpy(char *dst, const char *src, size_t n,
                            uint32_t loc) {
  MultiEventHook h{enter(kRecAccess)};
  size_t k = copyString(h, dst, src, n, loc);
  if (k + 1 < n)
    setBytes(h, dst + k + 1, 0, n - k - 1, loc);
  return h.finishWith(dst);
}

/// The scan for dst's end is not recorded (as a read it would only add
/// reads of bytes the copy does not change).
char *__racepredict_strcat(char *dst, const char *src, uint32_t loc) {
  MultiEventHook h{enter(kRecAccess)};
  copyString(h, dst + strlen(dst), src, SIZE_MAX, loc);
  return h.finishWith(dst);
}

/// At most n bytes of src, then the terminator.
char *__racepredict_strncat(char *dst, const char *src, size_t n,
                            uint32_t loc) {
  MultiEventHook h{enter(kRecAccess)};
  char *end = dst + strlen(dst);
  if (copyString(h, end, src, n, loc) == n)
    setBytes(h, end + n, 0, 1, loc);
  return h.finishWith(dst);
}

} // extern "C"
