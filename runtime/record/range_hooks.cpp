//===- record/range_hooks.cpp - memcpy, memmove, memset and wide accesses -===//
//
// A range is recorded chunk by chunk, each chunk an aligned access of 8,
// 4, 2 or 1 bytes, so that chunks line up with the program's scalar
// accesses; the hook performs the copy itself, chunk by chunk, with the
// token held (access_record.h).
//
#include "access_record.h"

#include "racepredict/abi/runtime.h"

namespace racepredict::rt {
namespace {

/// The largest power-of-two chunk (<= 8) that keeps every chunk of the
/// range aligned, so chunks line up with the program's scalar accesses.
unsigned chunkSize(uintptr_t a, uintptr_t b, uint64_t n) {
  uint64_t bits = a | b | n;
  for (unsigned g = 8; g > 1; g /= 2)
    if ((bits & (g - 1)) == 0)
      return g;
  return 1;
}

/// Copies one aligned chunk from `src` to `dst`, recording the read of
/// `src` (when recordRead) and the write of `dst` (when recordWrite).
void copyChunk(MultiEventHook &h, void *dst, const void *src, unsigned g,
               bool recordRead, bool recordWrite, uint32_t loc) {
  uint64_t raw = 0;
  memcpy(&raw, src, g);
  if (recordRead && h.next()) {
    if (!stopped())
      putAccess(h.ts, RP_READ, g, signExtend(raw, g), loc, src);
    h.ts->readsSinceBranch = true;
  }
  memcpy(dst, &raw, g);
  if (recordWrite && h.next() && !stopped())
    putAccess(h.ts, RP_WRITE, g, signExtend(raw, g), loc, dst);
  // Long ranges fill the buffer: flush between chunks, not only at leave().
  if (h.ts)
    flushIfFull(h.ts, kMaxRecord * 2);
}

/// A range copy where either side may be private (the pass passes its own
/// temporary for load_range/store_range). Overlapping moves run backwards
/// when the destination is above the source, as memmove does.
void copyRange(void *dst, const void *src, uint64_t n, bool recordRead,
               bool recordWrite, uint32_t loc) {
  if (!n)
    return;
  MultiEventHook h{enter(kRecAccess)};
  if (!h.ts) {
    memmove(dst, src, n);
    return;
  }
  auto d = reinterpret_cast<uintptr_t>(dst);
  auto s = reinterpret_cast<uintptr_t>(src);
  unsigned g = chunkSize(recordWrite ? d : 0, recordRead ? s : 0, n);
  bool backwards = d > s && d < s + n;
  for (uint64_t i = 0; i < n; i += g) {
    uint64_t off = backwards ? n - g - i : i;
    copyChunk(h, reinterpret_cast<void *>(d + off),
              reinterpret_cast<const void *>(s + off), g, recordRead,
              recordWrite, loc);
  }
  __racepredict_read_seq = 0;
  h.finish();
}

/// After a string function's byte read, when another follows: the
/// function went on because of the byte's value (access_record.h).
void decidedByByte(MultiEventHook &h, uint64_t i, uint64_t n, uint32_t loc) {
  if (i + 1 < n && h.next() && !stopped())
    plainBranch(h.ts, loc);
}

} // namespace

void readChunks(MultiEventHook &h, const void *src, uint64_t n, uint32_t loc) {
  auto s = reinterpret_cast<uintptr_t>(src);
  unsigned g = chunkSize(0, s, n);
  uint64_t scratch;
  for (uint64_t i = 0; i < n && h.ts; i += g)
    copyChunk(h, &scratch, reinterpret_cast<const void *>(s + i), g, true,
              false, loc);
}

void readBytes(MultiEventHook &h, const void *src, uint64_t n, uint32_t loc) {
  uint8_t scratch;
  for (uint64_t i = 0; i < n && h.ts; ++i) {
    copyChunk(h, &scratch, static_cast<const uint8_t *>(src) + i, 1, true,
              false, loc);
    decidedByByte(h, i, n, loc);
  }
}

void copyBytes(MultiEventHook &h, void *dst, const void *src, uint64_t n,
               uint32_t loc) {
  for (uint64_t i = 0; i < n; ++i) {
    copyChunk(h, static_cast<uint8_t *>(dst) + i,
              static_cast<const uint8_t *>(src) + i, 1, true, true, loc);
    decidedByByte(h, i, n, loc);
  }
}

void setBytes(MultiEventHook &h, void *dst, uint8_t byte, uint64_t n,
              uint32_t loc) {
  for (uint64_t i = 0; i < n; ++i)
    copyChunk(h, static_cast<uint8_t *>(dst) + i, &byte, 1, false, true, loc);
}

} // namespace racepredict::rt

using namespace racepredict::rt;

extern "C" {

void __racepredict_load_range(void *addr, void *buf, uint64_t n, uint32_t loc) {
  copyRange(buf, addr, n, true, false, loc);
}
void __racepredict_store_range(void *addr, void *buf, uint64_t n,
                               uint32_t loc) {
  copyRange(addr, buf, n, false, true, loc);
}
void __racepredict_memcpy(void *dst, void *src, uint64_t n, uint32_t loc) {
  copyRange(dst, src, n, true, true, loc);
}
void __racepredict_memmove(void *dst, void *src, uint64_t n, uint32_t loc) {
  copyRange(dst, src, n, true, true, loc);
}

void __racepredict_memset(void *dst, uint8_t byte, uint64_t n, uint32_t loc) {
  if (!n)
    return;
  MultiEventHook h{enter(kRecAccess)};
  if (!h.ts) {
    memset(dst, byte, n);
    return;
  }
  uint8_t pattern[8];
  memset(pattern, byte, sizeof pattern);
  auto d = reinterpret_cast<uintptr_t>(dst);
  unsigned g = chunkSize(d, 0, n);
  for (uint64_t i = 0; i < n; i += g)
    copyChunk(h, reinterpret_cast<void *>(d + i), pattern, g, false, true, loc);
  h.finish();
}

} // extern "C"
