//===- record/trace_file.cpp - The trace file: name, ownership, header ----===//
//
// trace= names the file (%p: the pid; default <prog>.<pid>.rptrace). One
// process records into one file, and holds an flock on it while it does:
// a program started by the recorded one (system(), posix_spawn, a pipe to
// another instrumented tool) inherits RACEPREDICT_OPTIONS and would truncate
// and overwrite the same file; finding it locked, it records into
// <stem>.<pid>.rptrace instead (a forked child and an exec'd image choose
// their own names, fork_exec.cpp; docs/recording.md, "fork and exec").
//
#include "state.h"

#include "../common/raw_io.h"

#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

extern "C" char *program_invocation_short_name;

namespace racepredict::rt {
namespace {

/// Copies `pattern` to `out` with %p replaced by `pid`.
void expandPattern(char *out, size_t cap, const char *pattern, int pid) {
  size_t m = 0;
  for (size_t i = 0; pattern[i] && m + 24 < cap; ++i) {
    if (pattern[i] == '%' && pattern[i + 1] == 'p') {
      RawBuf b;
      b.num(static_cast<uint64_t>(pid));
      for (size_t k = 0; k < b.len; ++k)
        out[m++] = b.data[k];
      ++i;
    } else {
      out[m++] = pattern[i];
    }
  }
  out[m] = 0;
}

/// Opens `name` for this process alone: -1 if another live process records
/// into it (its lock is held), -2 if it cannot be opened. Not a regular file
/// (/dev/null for a replay): opened as is.
int openOwned(const char *name) {
  int fd = open(name, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return -2;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    return fd;
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    close(fd);
    return -1;
  }
  if (ftruncate(fd, 0) != 0) {
    close(fd);
    return -2;
  }
  return fd;
}

} // namespace

void traceStem(char *out, size_t cap, const char *name) {
  rawCopy(out, name, cap);
  size_t n = rawStrlen(out);
  const char *ext = ".rptrace";
  size_t e = rawStrlen(ext);
  if (n > e && rawStreq(out + n - e, ext, e))
    out[n - e] = 0;
}

void traceNameFor(char *out, size_t cap, int pid) {
  const char *pattern = g.opts.trace;
  RawBuf def;
  if (!pattern[0]) {
    def.str(program_invocation_short_name ? program_invocation_short_name
                                          : "prog")
        .str(".%p.rptrace");
    pattern = def.cstr();
  }
  bool perPid = false;
  for (const char *s = pattern; *s && !perPid; ++s)
    perPid = s[0] == '%' && s[1] == 'p';
  if (perPid || pid == 0) {
    expandPattern(out, cap, pattern, pid ? pid : getpid());
    return;
  }
  // A fixed name, and a process that is not the one it was meant for.
  char stem[512];
  traceStem(stem, sizeof stem, pattern);
  RawBuf b;
  b.str(stem).str(".").num(static_cast<uint64_t>(pid)).str(".rptrace");
  rawCopy(out, b.cstr(), cap);
}

void openTrace(const char *name) {
  rawCopy(g.traceName, name, sizeof g.traceName);
  g.fd = openOwned(g.traceName);
  if (g.fd == -1) {
    char mine[512];
    traceNameFor(mine, sizeof mine, getpid());
    RawBuf b;
    b.str("racepredict: another process records into ")
        .str(g.traceName)
        .str("; this one (pid ")
        .num(static_cast<uint64_t>(getpid()))
        .str(") records into ")
        .str(mine)
        .str("\n");
    writeAll(2, b.data, b.len);
    rawCopy(g.traceName, mine, sizeof g.traceName);
    g.fd = openOwned(g.traceName);
  }
  if (g.fd < 0) {
    RawBuf b;
    b.str("cannot create trace '").str(g.traceName).str("'");
    fatal(b.cstr());
  }
  g.bytesWritten = 0;
  uint8_t header[RP_HEADER_SIZE] = {'R', 'P', 'T', 'R', 'A', 'C', 'E', 0};
  header[8] = RP_TRACE_VERSION & 0xff;
  header[9] = RP_TRACE_VERSION >> 8;
  header[10] = 1; // little-endian
  header[11] = sizeof(void *);
  writeAll(g.fd, header, sizeof header); // flags (bytes 12-15) stay 0
  g.bytesWritten = sizeof header;
}

} // namespace racepredict::rt
