//===- common/options.h - Parsed RACEPREDICT_OPTIONS ----------------------===//
#pragma once

#include <stdint.h>

namespace racepredict::rt {

/// Event categories selectable with events=.
enum EventMask : uint32_t {
  kRecSync = 1,
  kRecAccess = 2,
  kRecAtomic = 4,
  kRecBranch = 8,
  kRecAlloc = 16,
  kRecAll = 31,
  /// Thread begin/end/fork/join: always on, whatever events= says.
  kRecThread = 32,
  /// Not a category: in a thread's fast-path mask, accesses are recorded
  /// and writes keep their dependence lists (not write_deps=all).
  kFastWriteDeps = 64
};

struct Options {
  // `str` options are fixed arrays so that parsing needs no allocation.
#define RP_FIELD_str(name) char name[256]
#define RP_FIELD_uint(name) uint64_t name
#define RP_FIELD_bool(name) bool name
#define RP_OPTION(type, name, def, desc) RP_FIELD_##type(name);
#include "options.inc"
#undef RP_OPTION
#undef RP_FIELD_str
#undef RP_FIELD_uint
#undef RP_FIELD_bool
  /// events= as a mask of EventMask bits.
  uint32_t eventMask;
  /// branch_deps=all: every decision is a plain branch (the conservative
  /// rule), also those the pass found to depend on no read.
  bool plainBranches;
  /// write_deps=all: every write is recorded without its dependence list.
  bool plainWrites;
};

/// Fills `o` from the defaults in options.inc and the environment; exits
/// with status 2 and a message on a malformed value.
void parseOptions(Options &o, const char *env);
/// Writes the option table (generated from options.inc) to stderr.
void printOptionHelp();

} // namespace racepredict::rt
