//===- record/stdio_hooks.cpp - stdio on the program's buffers ------------===//
//
// ThreadSanitizer's interceptors record the memory stdio reads and writes
// for the program (sanitizer_common_interceptors.inc: puts, fputs, fwrite
// read their buffer, fread and fgets write theirs, and with check_printf,
// on by default, the printf family reads its %s arguments and sprintf
// writes its output): a status line one thread updates while a logger
// thread prints it is a race TSan reports, and we recorded nothing of the
// print. The pass rewrites the program's direct calls (hooks.def REWRITE)
// and, for a printf-family call with a constant format, calls read_cstr
// for each string argument before it and wrote_cstr for sprintf's output
// after it (instrument/FormatCalls.cpp).
//
// Reads are recorded before the call, with the token, byte by byte for
// strings (ByteScan, as strlen's: a reordering that changes a byte cannot
// keep the rest of the scan) and in load_range's chunks for fwrite's
// records; writes after it, of the bytes the call left. The call itself
// runs without the token, which is handed on first: a read of a terminal
// or a pipe may block.
//
#include "access_record.h"

#include "racepredict/abi/runtime.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

namespace racepredict::rt {
namespace {

/// Records the reads of the string at s, up to and with its terminator or
/// `max` bytes, as libc scans it.
void readString(const char *s, uint64_t max, uint32_t loc) {
  if (!s || !max)
    return;
  MultiEventHook h{enter(kRecAccess)};
  if (!h.ts)
    return;
  ByteScan scan{h, loc};
  for (uint64_t n = 0; n < max && scan.onward(!scan.read(s + n), n, max);)
    ++n;
  h.finish();
}

/// Records the reads of fwrite's n bytes at p.
void readBytes(const void *p, uint64_t n, uint32_t loc) {
  if (!p || !n)
    return;
  MultiEventHook h{enter(kRecAccess)};
  readChunks(h, p, n, loc);
  h.finish();
}

/// Records as writes the n bytes a call left at p (byte by byte for a
/// string).
void wroteBytes(const void *p, uint64_t n, bool string, uint32_t loc) {
  if (!p || !n)
    return;
  MultiEventHook h{enter(kRecAccess)};
  if (!h.ts)
    return;
  wroteChunks(h, p, n, string, loc);
  h.finish();
}

} // namespace
} // namespace racepredict::rt

using namespace racepredict::rt;

extern "C" {

int __racepredict_puts(const char *s, uint32_t loc) {
  readString(s, UINT64_MAX, loc);
  beforeBlocking();
  __racepredict_read_seq = 0;
  return puts(s);
}

int __racepredict_fputs(const char *s, FILE *f, uint32_t loc) {
  readString(s, UINT64_MAX, loc);
  beforeBlocking();
  __racepredict_read_seq = 0;
  return fputs(s, f);
}

size_t __racepredict_fwrite(const void *p, size_t size, size_t n, FILE *f,
                            uint32_t loc) {
  readBytes(p, static_cast<uint64_t>(size) * n, loc);
  beforeBlocking();
  __racepredict_read_seq = 0;
  return fwrite(p, size, n, f);
}

size_t __racepredict_fread(void *p, size_t size, size_t n, FILE *f,
                           uint32_t loc) {
  beforeBlocking();
  size_t got = fread(p, size, n, f);
  wroteBytes(p, static_cast<uint64_t>(size) * got, false, loc);
  __racepredict_read_seq = 0;
  return got;
}

char *__racepredict_fgets(char *s, int n, FILE *f, uint32_t loc) {
  beforeBlocking();
  char *r = fgets(s, n, f);
  if (r)
    wroteBytes(s, strlen(s) + 1, true, loc);
  __racepredict_read_seq = 0;
  return r;
}

void __racepredict_read_cstr(void *s, uint64_t max, uint32_t loc) {
  readString(static_cast<const char *>(s), max, loc);
}

void __racepredict_wrote_cstr(void *dst, uint64_t cap, uint32_t result,
                              uint32_t loc) {
  auto r = static_cast<int32_t>(result);
  if (r < 0 || !cap)
    return; // an output error, or snprintf(NULL, 0, ...): nothing written
  uint64_t n = static_cast<uint64_t>(r) + 1;
  wroteBytes(dst, n < cap ? n : cap, true, loc);
}

} // extern "C"
