//===- common/varint.h - The recorder's LEB128 and zigzag encoders --------===//
//
// Header-only and free of libc and the STL, like the rest of the runtime,
// so the hooks inline it and test/unit/trace checks it against the reader's
// decoder (src/trace/binary_codec.h).
//
#pragma once

#include <stdint.h>

#ifndef RP_LIKELY
#define RP_LIKELY(x) __builtin_expect(!!(x), 1)
#endif

namespace racepredict::rt {

/// The 7-bit groups of the low 56 bits of `v`, one per byte (LEB128's
/// payload without its continuation bits): three shift-and-mask steps.
inline uint64_t spreadGroups(uint64_t v) {
  uint64_t x = (v & 0xFFFFFFFull) | ((v & 0xFFFFFFF0000000ull) << 4);
  x = (x & 0x00003FFF00003FFFull) | ((x & 0x0FFFC0000FFFC000ull) << 2);
  return (x & 0x007F007F007F007Full) | ((x & 0x3F803F803F803F80ull) << 1);
}
/// LEB128 without a per-byte loop: the groups are spread into one 8-byte
/// word, the continuation bits set by length and the word stored at once
/// (a per-byte loop runs up to ten times and mispredicts its exit on every
/// change of length; the large values of sums and pointers made it most of
/// an access hook's instructions: bench/RESULTS.md, "Recording"). Writes up
/// to 8 bytes even for shorter numbers (10 for the largest): records
/// reserve kMaxRecord bytes, and every other buffer it writes into keeps
/// that much slack.
inline uint8_t *putVarint(uint8_t *p, uint64_t v) {
  if (RP_LIKELY(v < 0x80)) {
    *p = static_cast<uint8_t>(v);
    return p + 1;
  }
  if (v < 0x4000) { // source ids, small deltas: two bytes, no spreading
    p[0] = static_cast<uint8_t>(v | 0x80);
    p[1] = static_cast<uint8_t>(v >> 7);
    return p + 2;
  }
  if (RP_LIKELY(v < (uint64_t{1} << 56))) {
    // Bytes by leading zeros (15..56 significant bits here: 3..8 bytes; the
    // table covers every width) and the continuation bits of all but the
    // last, from tables (a division by 7 and a variable shift cost more).
    static constexpr uint8_t kBytes[64] = {
        0, 0, 0, 0, 0, 0, 0, 0, 8, 8, 8, 8, 8, 8, 8, 7, 7, 7, 7, 7, 7, 7,
        6, 6, 6, 6, 6, 6, 6, 5, 5, 5, 5, 5, 5, 5, 4, 4, 4, 4, 4, 4, 4, 3,
        3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1};
    static constexpr uint64_t kCont[9] = {0,
                                          0,
                                          0x80,
                                          0x8080,
                                          0x808080,
                                          0x80808080,
                                          0x8080808080,
                                          0x808080808080,
                                          0x80808080808080};
    unsigned bytes = kBytes[__builtin_clzll(v)];
    uint64_t x = spreadGroups(v) | kCont[bytes];
    __builtin_memcpy(p, &x, 8);
    return p + bytes;
  }
  uint64_t x = spreadGroups(v) | 0x8080808080808080ull;
  __builtin_memcpy(p, &x, 8);
  v >>= 56; // 8 more bits: one or two bytes
  if (v < 0x80) {
    p[8] = static_cast<uint8_t>(v);
    return p + 9;
  }
  p[8] = static_cast<uint8_t>(v | 0x80);
  p[9] = static_cast<uint8_t>(v >> 7);
  return p + 10;
}
inline uint64_t zigzag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

} // namespace racepredict::rt
