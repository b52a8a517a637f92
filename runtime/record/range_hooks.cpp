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
/// `src` (when recordRead) and the write of `dst` (when recordWrite);
/// returns the chunk. The chunk is read after the read's turn under replay
/// (MultiEventHook::next), so that it is what the schedule's writes before
/// that turn left, as the recorded value was.
uint64_t copyChunk(MultiEventHook &h, void *dst, const void *src, unsigned g,
                   bool recordRead, bool recordWrite, uint32_t loc) {
  bool record = recordRead && h.next();
  uint64_t raw = 0;
  memcpy(&raw, src, g);
  if (record) {
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
  return raw;
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

} // namespace

void readChunks(MultiEventHook &h, const void *src, uint64_t n, uint32_t loc) {
  auto s = reinterpret_cast<uintptr_t>(src);
  unsigned g = chunkSize(0, s, n);
  uint64_t scratch;
  for (uint64_t i = 0; i < n && h.ts; i += g)
    copyChunk(h, &scratch, reinterpret_cast<const void *>(s + i), g, true,
              false, loc);
}

void wroteChunks(MultiEventHook &h, const void *dst, uint64_t n, bool bytes,
                 uint32_t loc) {
  auto d = reinterpret_cast<uintptr_t>(dst);
  unsigned g = bytes ? 1 : chunkSize(0, d, n);
  for (uint64_t i = 0; i < n && h.next(); i += g) {
    uint64_t raw = 0;
    memcpy(&raw, reinterpret_cast<const void *>(d + i), g);
    if (!stopped())
      putAccess(h.ts, RP_WRITE, g, signExtend(raw, g), loc,
                reinterpret_cast<const void *>(d + i));
    flushIfFull(h.ts, kMaxRecord * 2);
  }
}

uint8_t ByteScan::read(const void *src) {
  uint8_t byte;
  copyChunk(h, &byte, src, 1, true, false, loc);
  return byte;
}

uint8_t ByteScan::copy(void *dst, const void *src) {
  return static_cast<uint8_t>(copyChunk(h, dst, src, 1, true, true, loc));
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
