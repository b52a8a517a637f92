//===- trace/hidden_writes.cpp - Renaming after writes the trace cannot show
//===//
//
// Uninstrumented code (libc, libstdc++, the kernel filling a read buffer)
// writes memory without events, so a recorded read may see a value no
// recorded write produced. The recorder of format v4 does not look for that
// (the v1-v3 recorders kept a shadow of every recorded value, at a cost per
// access and ~100 MB); the reader does, exactly, since the v4 order is the
// observed order: a read whose value differs from the last value recorded
// at its address with the same size starts a new location there (named
// `x~1`, `x~2`, ...), which begins with the value that read saw. The trace
// stays consistent, and only pairs across the hidden write are not compared
// (docs/recording.md).
//
// The size does not matter: the analyser's locations are addresses, and a
// read must see the value of the last write to its location. A 1-byte read
// of a string's first character after the 4-byte store that copied the
// string there (libstdc++ at -O2) sees another number than the store wrote;
// without a new name that read could never happen in the model, nor could
// anything after the thread's next branch (no race in C++ code at -O2 after
// the first std::string built that way).
//
#include "binary_raw.h"

namespace racepredict::trace {

void renameAfterHiddenWrites(RawTrace &raw) {
  SymbolTable &locs = raw.t.names[int(NameSpace::Location)];
  struct Last {
    bool known = false;
    int64_t value = 0;
    SymId current = kNone; ///< the name the address goes by now
    uint32_t renames = 0;
  };
  std::vector<Last> last(locs.size());
  // The k-th name of address `addr` after it: `x~k`.
  auto renamed = [&](SymId addr, uint32_t k) {
    return locs.intern(locs.name(addr) + "~" + std::to_string(k));
  };
  for (Event &e : raw.events) {
    if (!isAccess(e.kind))
      continue;
    SymId addr = e.obj;
    if (addr >= last.size())
      continue; // a name interned by an earlier rename, never an address
    Last &l = last[addr];
    if (raw.namesGiven) {
      // A filtered load (trace/record_filter.h): the filter saw all of the
      // address's accesses, this trace only some.
      uint32_t k = e.aux - 1;
      e.aux = 0;
      if (k != l.renames) {
        l.renames = k;
        l.current = k == 0 ? kNone : renamed(addr, k);
      }
      if (l.current != kNone)
        e.obj = l.current;
      continue;
    }
    if (readsValue(e.kind)) {
      int64_t seen =
          e.kind == EventKind::AtomicRmw ? raw.t.rmwOld[e.extra] : e.value;
      if (l.known && l.value != seen)
        l.current = renamed(addr, ++l.renames);
      l.value = seen;
    }
    if (writesValue(e.kind))
      l.value = e.value;
    l.known = true;
    if (l.current != kNone)
      e.obj = l.current;
  }
}

} // namespace racepredict::trace
