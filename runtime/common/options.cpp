//===- common/options.cpp - Parse RACEPREDICT_OPTIONS without allocating --===//
#include "options.h"

#include "raw_io.h"

#include <unistd.h>

namespace racepredict::rt {
namespace {

[[noreturn]] void badOption(const char *what, const char *val, size_t n) {
  RawBuf b;
  b.str("racepredict: RACEPREDICT_OPTIONS: ").str(what).str(" '");
  for (size_t i = 0; i < n && b.len + 2 < sizeof(b.data); ++i)
    b.data[b.len++] = val[i];
  b.str("' (set RACEPREDICT_OPTIONS=help=1 for the list)\n");
  writeAll(2, b.data, b.len);
  _exit(2);
}

void setStr(char *dst, const char *v, size_t n) {
  if (n > 255)
    badOption("value too long", v, n);
  for (size_t i = 0; i < n; ++i)
    dst[i] = v[i];
  dst[n] = 0;
}

void setUint(uint64_t &dst, const char *v, size_t n) {
  uint64_t x = 0;
  size_t i = 0;
  for (; i < n && v[i] >= '0' && v[i] <= '9'; ++i)
    x = x * 10 + static_cast<uint64_t>(v[i] - '0');
  if (i == 0)
    badOption("expected a number, got", v, n);
  if (i + 1 == n && (v[i] == 'k' || v[i] == 'K'))
    x <<= 10;
  else if (i + 1 == n && (v[i] == 'm' || v[i] == 'M'))
    x <<= 20;
  else if (i + 1 == n && (v[i] == 'g' || v[i] == 'G'))
    x <<= 30;
  else if (i != n)
    badOption("expected a number, got", v, n);
  dst = x;
}

void setBool(bool &dst, const char *v, size_t n) {
  if (n == 1 && (v[0] == '0' || v[0] == '1'))
    dst = v[0] == '1';
  else
    badOption("expected 0 or 1, got", v, n);
}

uint32_t parseEvents(const char *s) {
  uint32_t mask = 0;
  while (*s) {
    size_t n = 0;
    while (s[n] && s[n] != ',')
      ++n;
    if (rawStreq(s, "all", n))
      mask |= kRecAll;
    else if (rawStreq(s, "sync", n))
      mask |= kRecSync;
    else if (rawStreq(s, "access", n))
      mask |= kRecAccess;
    else if (rawStreq(s, "atomic", n))
      mask |= kRecAtomic;
    else if (rawStreq(s, "branch", n))
      mask |= kRecBranch;
    else if (rawStreq(s, "alloc", n))
      mask |= kRecAlloc;
    else
      badOption("unknown event category", s, n);
    s += n;
    if (*s == ',')
      ++s;
  }
  return mask;
}

} // namespace

void parseOptions(Options &o, const char *env) {
#define RP_OPTION(type, name, def, desc) RP_DEF_##type(name, def);
#define RP_DEF_str(name, def) setStr(o.name, def, rawStrlen(def))
#define RP_DEF_uint(name, def) o.name = def
#define RP_DEF_bool(name, def) o.name = def
#include "options.inc"
#undef RP_DEF_str
#undef RP_DEF_uint
#undef RP_DEF_bool
#undef RP_OPTION
  const char *s = env ? env : "";
  while (*s) {
    size_t n = 0;
    while (s[n] && s[n] != ':')
      ++n;
    size_t eq = 0;
    while (eq < n && s[eq] != '=')
      ++eq;
    if (eq == n)
      badOption("expected name=value, got", s, n);
    const char *v = s + eq + 1;
    size_t vn = n - eq - 1;
    bool known = false;
#define RP_OPTION(type, name, def, desc)                                       \
  if (!known && eq == sizeof(#name) - 1 && rawStreq(s, #name, eq)) {           \
    RP_SET_##type(o.name, v, vn);                                              \
    known = true;                                                              \
  }
#define RP_SET_str(dst, v, vn) setStr(dst, v, vn)
#define RP_SET_uint(dst, v, vn) setUint(dst, v, vn)
#define RP_SET_bool(dst, v, vn) setBool(dst, v, vn)
#include "options.inc"
#undef RP_SET_str
#undef RP_SET_uint
#undef RP_SET_bool
#undef RP_OPTION
    if (!known)
      badOption("unknown option", s, eq);
    s += n;
    if (*s == ':')
      ++s;
  }
  o.eventMask = parseEvents(o.events) | kRecThread;
  size_t bn = rawStrlen(o.branch_deps);
  if (rawStreq(o.branch_deps, "all", bn))
    o.plainBranches = true;
  else if (!rawStreq(o.branch_deps, "precise", bn))
    badOption("branch_deps must be precise or all, got", o.branch_deps,
              rawStrlen(o.branch_deps));
  size_t wn = rawStrlen(o.write_deps);
  if (rawStreq(o.write_deps, "all", wn))
    o.plainWrites = true;
  else if (!rawStreq(o.write_deps, "precise", wn))
    badOption("write_deps must be precise or all, got", o.write_deps, wn);
  if (o.buffer < 4096)
    o.buffer = 4096; // a block must hold at least a few dozen records
  if (o.buffer > (1u << 30))
    badOption("buffer larger than 1g", "buffer", 6);
}

void printOptionHelp() {
  RawBuf b;
  b.str("racepredict runtime options (RACEPREDICT_OPTIONS=name=value:...):\n");
  writeAll(2, b.data, b.len);
#define RP_OPTION(type, name, def, desc)                                       \
  {                                                                            \
    RawBuf l;                                                                  \
    l.str("  ")                                                                \
        .str(#name)                                                            \
        .str(" (" #type ", default " #def "): ")                               \
        .str(desc)                                                             \
        .str("\n");                                                            \
    writeAll(2, l.data, l.len);                                                \
  }
#include "options.inc"
#undef RP_OPTION
}

} // namespace racepredict::rt
