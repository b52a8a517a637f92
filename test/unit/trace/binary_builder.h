//===- binary_builder.h - Hand-crafted binary traces for reader tests -----===//
//
// Writes format.h layouts field by field, so tests can build files the
// writer never produces (interleaved blocks out of order, raw keys, names
// after events, corrupt fields).
//
#pragma once

#include "binary_codec.h"
#include "racepredict/trace/format.h"

#include <initializer_list>
#include <string>

namespace racepredict::trace::test {

class BinaryBuilder {
public:
  explicit BinaryBuilder(unsigned version = 1) {
    bytes_.assign(RP_TRACE_MAGIC, sizeof(RP_TRACE_MAGIC));
    codec::putU16(bytes_, static_cast<uint16_t>(version));
    bytes_.push_back(1);
    bytes_.push_back(8);
    codec::putU32(bytes_, 0);
  }

  /// A payload of varints (bytes written as given by `raw`).
  static std::string varints(std::initializer_list<uint64_t> vs) {
    std::string p;
    for (uint64_t v : vs)
      codec::putVarint(p, v);
    return p;
  }
  static std::string name(uint8_t ns, uint64_t key, const std::string &n) {
    std::string p(1, static_cast<char>(ns));
    codec::putVarint(p, key);
    codec::putVarint(p, n.size());
    return p + n;
  }
  /// A record: kind byte, then varint fields (seq delta first).
  static std::string rec(uint8_t kind, std::initializer_list<uint64_t> vs) {
    return std::string(1, static_cast<char>(kind)) + varints(vs);
  }

  BinaryBuilder &block(rp_block_type type, const std::string &payload) {
    bytes_.push_back(static_cast<char>(type));
    bytes_.append(3, '\0');
    codec::putU32(bytes_, static_cast<uint32_t>(payload.size()));
    bytes_ += payload;
    return *this;
  }
  BinaryBuilder &events(uint64_t thread, uint64_t firstSeq, uint64_t count,
                        const std::string &records) {
    return block(RP_BLOCK_EVENTS, varints({thread, firstSeq, count}) + records);
  }
  BinaryBuilder &end() { return block(RP_BLOCK_END, ""); }
  const std::string &bytes() const { return bytes_; }

private:
  std::string bytes_;
};

} // namespace racepredict::trace::test
