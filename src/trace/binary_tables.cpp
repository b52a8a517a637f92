//===- trace/binary_tables.cpp - NAMES, SOURCES, INIT and GLOBALS blocks ===//
//
// The blocks of a binary trace that are tables rather than events
// (trace/format.h): keys are interned as provisional ids, sources and
// globals kept as the file has them, for binary_resolve.cpp to bind.
//
#include "binary_reader.h"

namespace racepredict::trace {

Expected<bool> BinaryReader::names(Cursor &c, bool complete) {
  while (!c.atEnd()) {
    uint64_t start = c.offset();
    Fields f{c};
    uint8_t ns = f.b();
    uint64_t key = f.v();
    std::string name = f.s();
    RACEPREDICT_CHECK_ENTRY(f, start, "a NAMES entry");
    if (ns >= kNumNameSpaces)
      return fail(start, "unknown name space " + std::to_string(ns));
    if (name.empty() || !sane(name))
      return fail(start, "an empty or unprintable name");
    KeySpace &ks = raw_.keys[ns];
    ks.names[ks.id(key)] = std::move(name);
  }
  return true;
}

Expected<bool> BinaryReader::sources(Cursor &c, bool complete) {
  while (!c.atEnd()) {
    uint64_t start = c.offset();
    Fields f{c};
    uint64_t id = f.v();
    SourceLoc loc;
    loc.file = f.s();
    uint64_t line = f.v(), col = f.v();
    loc.function = f.s();
    uint64_t inlinedAt = raw_.version >= 2 ? f.v() : 0;
    RACEPREDICT_CHECK_ENTRY(f, start, "a SOURCES entry");
    if (inlinedAt >= kNone || inlinedAt == id)
      return fail(start, "inlined-at source id " + std::to_string(inlinedAt) +
                             " out of range");
    // A file source id for now; binary_resolve.cpp maps it.
    loc.inlinedAt = static_cast<SrcId>(inlinedAt);
    if (id == 0 || id >= kNone)
      return fail(start, "source id " + std::to_string(id) + " out of range");
    if (line > UINT32_MAX || col > UINT32_MAX)
      return fail(start, "source line or column out of range");
    // An empty file is legal: the runtime writes one for code without
    // debug information.
    if (!sane(loc.file) || !sane(loc.function))
      return fail(start, "an unprintable source file or function name");
    loc.line = static_cast<uint32_t>(line);
    loc.column = static_cast<uint32_t>(col);
    if (!sourceIndex_.emplace(id, raw_.sources.size()).second)
      return fail(start, "source id " + std::to_string(id) + " defined twice");
    raw_.sources.emplace_back(id, std::move(loc));
  }
  return true;
}

Expected<bool> BinaryReader::inits(Cursor &c, bool complete) {
  while (!c.atEnd()) {
    uint64_t start = c.offset();
    Fields f{c};
    uint64_t key = f.v();
    int64_t value = codec::unzigzag(f.v());
    RACEPREDICT_CHECK_ENTRY(f, start, "an INIT entry");
    raw_.inits.emplace_back(raw_.keys[int(NameSpace::Location)].id(key), value);
  }
  return true;
}

Expected<bool> BinaryReader::globals(Cursor &c, bool complete) {
  while (!c.atEnd()) {
    uint64_t start = c.offset();
    Fields f{c};
    uint64_t addr = f.v(), size = f.v();
    std::string name = f.s();
    RACEPREDICT_CHECK_ENTRY(f, start, "a GLOBALS entry");
    if (name.empty() || !sane(name))
      return fail(start, "an empty or unprintable global name");
    if (size == 0 || addr + size < addr)
      return fail(start, "global '" + name +
                             "' has an empty or wrapping "
                             "address range");
    raw_.globals.push_back({addr, size, std::move(name)});
  }
  return true;
}

} // namespace racepredict::trace
