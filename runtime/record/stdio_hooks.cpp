//===- record/stdio_hooks.cpp - stdio on the program's buffers ------------===//
//
// ThreadSanitizer's interceptors record the memory stdio reads and writes
// for the program (sanitizer_common_interceptors.inc: puts, fputs, fwrite
// read their buffer, fread and fgets write theirs, and with check_printf,
// on by default, the printf family reads its %s arguments and sprintf
// writes its output): a status line one thread updates while a logger
// thread prints it is a race TSan reports, and we recorded nothing of the
// print. The pass rewrites the program's direct calls (hooks.def REWRITE):
// the vprintf family's formats are read here, at run time, to walk their
// va_list; for a printf-family call with a constant format the pass calls
// read_cstr for each string argument before it and wrote_cstr for
// sprintf's output after it (instrument/FormatCalls.cpp).
//
// Reads are recorded before the call, with the token, byte by byte for
// strings (ByteScan, as strlen's: a reordering that changes a byte cannot
// keep the rest of the scan) and in load_range's chunks for fwrite's
// records; writes after it, of the bytes the call left. The call itself
// runs without the token, which is handed on first: a read of a terminal
// or a pipe may block.
//
#include "access_record.h"
#include "string_hooks.h"

#include "racepredict/abi/printf_format.h"
#include "racepredict/abi/runtime.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

extern "C" {
// glibc's fortified forms (bits/stdio2.h declares them only with
// -D_FORTIFY_SOURCE).
int __vprintf_chk(int flag, const char *fmt, va_list ap);
int __vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap);
int __vsprintf_chk(char *s, int flag, size_t slen, const char *fmt, va_list ap);
int __vsnprintf_chk(char *s, size_t n, int flag, size_t slen, const char *fmt,
                    va_list ap);
}

namespace racepredict::rt {
namespace {

/// Records the reads of the string at s, up to and with its terminator or
/// `max` bytes, as libc scans it: strnlen's (a null string, which printf
/// prints as "(null)", reads nothing).
void readString(const char *s, uint64_t max, uint32_t loc) {
  if (s)
    (void)__racepredict_strnlen(s, max, loc);
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
  wroteChunks(h, p, n, string, loc);
  h.finish();
}

/// The reads of a vprintf-family call's %s arguments: walks a copy of its
/// va_list by the format (printf_format.h), taking each argument as its
/// conversion says, and reads each string as readString does.
void readFormatArguments(const char *fmt, va_list ap, uint32_t loc) {
  if (!fmt)
    return;
  va_list aq;
  va_copy(aq, ap);
  forEachPrintfConversion(fmt, strlen(fmt), [&](const PrintfConversion &c) {
    if (c.widthArg)
      (void)va_arg(aq, int);
    long precision = c.precision;
    if (c.precisionArg) {
      int p = va_arg(aq, int);
      precision = p < 0 ? -1 : p; // a negative one is taken as none
    }
    switch (c.arg) {
    case PrintfArg::None:
      return;
    case PrintfArg::Int:
      (void)va_arg(aq, int);
      return;
    case PrintfArg::Long:
      (void)va_arg(aq, long long);
      return;
    case PrintfArg::Double:
      (void)va_arg(aq, double);
      return;
    case PrintfArg::LongDouble:
      (void)va_arg(aq, long double);
      return;
    case PrintfArg::Pointer: {
      const void *p = va_arg(aq, const void *);
      if (c.readsString())
        readString(
            static_cast<const char *>(p),
            precision < 0 ? UINT64_MAX : static_cast<uint64_t>(precision), loc);
      return;
    }
    }
  });
  va_end(aq);
}

/// The output an sprintf-like call returning `r` left at dst (at most
/// `cap` bytes, its terminator included).
void wroteOutput(char *dst, uint64_t cap, int r, uint32_t loc) {
  if (r < 0 || !cap)
    return; // an output error, or snprintf(NULL, 0, ...): nothing written
  uint64_t n = static_cast<uint64_t>(r) + 1;
  wroteBytes(dst, n < cap ? n : cap, true, loc);
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
  wroteOutput(static_cast<char *>(dst), cap, static_cast<int32_t>(result), loc);
}

// The vprintf family: a logging wrapper's `vfprintf(log, fmt, ap)`, whose
// format only the run knows.
int __racepredict_vprintf(const char *fmt, va_list ap, uint32_t loc) {
  readFormatArguments(fmt, ap, loc);
  beforeBlocking();
  __racepredict_read_seq = 0;
  return vprintf(fmt, ap);
}

int __racepredict_vfprintf(FILE *f, const char *fmt, va_list ap, uint32_t loc) {
  readFormatArguments(fmt, ap, loc);
  beforeBlocking();
  __racepredict_read_seq = 0;
  return vfprintf(f, fmt, ap);
}

int __racepredict_vdprintf(int fd, const char *fmt, va_list ap, uint32_t loc) {
  readFormatArguments(fmt, ap, loc);
  beforeBlocking();
  __racepredict_read_seq = 0;
  return vdprintf(fd, fmt, ap);
}

int __racepredict_vsprintf(char *s, const char *fmt, va_list ap, uint32_t loc) {
  readFormatArguments(fmt, ap, loc);
  int r = vsprintf(s, fmt, ap);
  wroteOutput(s, UINT64_MAX, r, loc);
  __racepredict_read_seq = 0;
  return r;
}

int __racepredict_vsnprintf(char *s, size_t n, const char *fmt, va_list ap,
                            uint32_t loc) {
  readFormatArguments(fmt, ap, loc);
  int r = vsnprintf(s, n, fmt, ap);
  wroteOutput(s, n, r, loc);
  __racepredict_read_seq = 0;
  return r;
}

int __racepredict___vprintf_chk(int flag, const char *fmt, va_list ap,
                                uint32_t loc) {
  readFormatArguments(fmt, ap, loc);
  beforeBlocking();
  __racepredict_read_seq = 0;
  return __vprintf_chk(flag, fmt, ap);
}

int __racepredict___vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap,
                                 uint32_t loc) {
  readFormatArguments(fmt, ap, loc);
  beforeBlocking();
  __racepredict_read_seq = 0;
  return __vfprintf_chk(f, flag, fmt, ap);
}

int __racepredict___vsprintf_chk(char *s, int flag, size_t slen,
                                 const char *fmt, va_list ap, uint32_t loc) {
  readFormatArguments(fmt, ap, loc);
  int r = __vsprintf_chk(s, flag, slen, fmt, ap);
  wroteOutput(s, slen, r, loc);
  __racepredict_read_seq = 0;
  return r;
}

int __racepredict___vsnprintf_chk(char *s, size_t n, int flag, size_t slen,
                                  const char *fmt, va_list ap, uint32_t loc) {
  readFormatArguments(fmt, ap, loc);
  int r = __vsnprintf_chk(s, n, flag, slen, fmt, ap);
  wroteOutput(s, n, r, loc);
  __racepredict_read_seq = 0;
  return r;
}

} // extern "C"
