//===- trace/binary_codec.h - LEB128 varints for the binary trace format --===//
//
// Private to src/trace: the encoding primitives of trace/format.h. The
// decoder distinguishes "ran out of bytes" (a cut file: maybe tolerable) from
// "malformed" (corruption: always an error), because the reader treats the two
// differently under ReadOptions::allowTruncated.
//
#pragma once

#include <cstdint>
#include <string>

namespace racepredict::trace::codec {

inline void putVarint(std::string &out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

inline uint64_t zigzag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

inline int64_t unzigzag(uint64_t u) {
  return static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1);
}

inline void putU16(std::string &out, uint16_t v) {
  out.push_back(static_cast<char>(v & 0xff));
  out.push_back(static_cast<char>(v >> 8));
}

inline void putU32(std::string &out, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

inline uint32_t getU32(const unsigned char *p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

enum class Status { Ok, Short, Bad };

/// Reads fields from one block payload held in memory. `base` is the file
/// offset of the payload's first byte, so errors can name file positions.
class Cursor {
public:
  Cursor(const unsigned char *begin, const unsigned char *end, uint64_t base)
      : begin_(begin), p_(begin), end_(end), base_(base) {}

  uint64_t offset() const { return base_ + static_cast<uint64_t>(p_ - begin_); }
  size_t remaining() const { return static_cast<size_t>(end_ - p_); }
  bool atEnd() const { return p_ == end_; }

  Status byte(uint8_t *v) {
    if (p_ == end_)
      return Status::Short;
    *v = *p_++;
    return Status::Ok;
  }

  /// At most 10 bytes; the 10th may only carry the top bit of a uint64.
  Status varint(uint64_t *v) {
    uint64_t out = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (p_ == end_)
        return Status::Short;
      uint8_t b = *p_++;
      if (shift == 63 && b > 1)
        return Status::Bad;
      out |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) {
        *v = out;
        return Status::Ok;
      }
    }
    return Status::Bad;
  }

  /// A length-prefixed string; the length is bounded by the bytes left, so
  /// a corrupt length can never make us allocate more than the block holds.
  Status string(std::string *s) {
    uint64_t len;
    Status st = varint(&len);
    if (st != Status::Ok)
      return st;
    if (len > remaining())
      return Status::Short;
    s->assign(reinterpret_cast<const char *>(p_), static_cast<size_t>(len));
    p_ += len;
    return Status::Ok;
  }

private:
  const unsigned char *begin_;
  const unsigned char *p_;
  const unsigned char *end_;
  uint64_t base_;
};

} // namespace racepredict::trace::codec
