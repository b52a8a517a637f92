//===- runtime_varint_test.cpp - The recorder's encoder vs the reader -----===//
//
// The runtime writes varints with a word-at-a-time encoder
// (runtime/common/varint.h) and the analyser reads them with the plain
// LEB128 decoder of src/trace/binary_codec.h: every length class, the
// boundaries between them and the 9- and 10-byte forms must agree byte for
// byte with the reference encoder, and the bytes written past the end (the
// encoder stores a whole word) must not be counted.
//
#include "binary_codec.h"

#include "common/varint.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using racepredict::trace::codec::Cursor;
using racepredict::trace::codec::Status;

/// The runtime's bytes for `v` (only the counted ones).
std::string runtimeBytes(uint64_t v) {
  uint8_t buf[32];
  std::memset(buf, 0xee, sizeof buf);
  uint8_t *end = racepredict::rt::putVarint(buf, v);
  return std::string(reinterpret_cast<char *>(buf), end - buf);
}

std::string referenceBytes(uint64_t v) {
  std::string s;
  racepredict::trace::codec::putVarint(s, v);
  return s;
}

std::vector<uint64_t> boundaryValues() {
  std::vector<uint64_t> vs = {0, 1, ~uint64_t{0}, ~uint64_t{0} - 1};
  for (unsigned bit = 1; bit < 64; ++bit) {
    uint64_t b = uint64_t{1} << bit;
    vs.insert(vs.end(), {b - 1, b, b + 1});
  }
  return vs;
}

TEST(RuntimeVarint, SameBytesAsTheReferenceAtEveryLengthBoundary) {
  for (uint64_t v : boundaryValues())
    EXPECT_EQ(runtimeBytes(v), referenceBytes(v)) << "value " << v;
}

TEST(RuntimeVarint, LengthsAreOneToTenBytes) {
  EXPECT_EQ(runtimeBytes(0x7f).size(), 1u);
  EXPECT_EQ(runtimeBytes(0x80).size(), 2u);
  EXPECT_EQ(runtimeBytes((uint64_t{1} << 56) - 1).size(), 8u);
  EXPECT_EQ(runtimeBytes(uint64_t{1} << 56).size(), 9u);
  EXPECT_EQ(runtimeBytes((uint64_t{1} << 63) - 1).size(), 9u);
  EXPECT_EQ(runtimeBytes(uint64_t{1} << 63).size(), 10u);
}

TEST(RuntimeVarint, RandomValuesOfEveryLengthDecodeBack) {
  std::mt19937_64 rng(42);
  std::string stream;
  std::vector<uint64_t> values;
  for (int i = 0; i < 100000; ++i) {
    uint64_t v = rng() >> (rng() % 64);
    values.push_back(v);
    ASSERT_EQ(runtimeBytes(v), referenceBytes(v)) << "value " << v;
    stream += runtimeBytes(v);
  }
  auto *p = reinterpret_cast<const unsigned char *>(stream.data());
  Cursor c(p, p + stream.size(), 0);
  for (uint64_t want : values) {
    uint64_t got = 0;
    ASSERT_EQ(c.varint(&got), Status::Ok);
    ASSERT_EQ(got, want);
  }
  EXPECT_TRUE(c.atEnd());
}

TEST(RuntimeVarint, ZigzagMatchesTheReader) {
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{1}, INT64_MIN, INT64_MAX,
                    int64_t{-64}, int64_t{64}})
    EXPECT_EQ(racepredict::rt::zigzag(v), racepredict::trace::codec::zigzag(v));
}

} // namespace
