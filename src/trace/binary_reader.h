//===- trace/binary_reader.h - The binary reader's parts, shared ---------===//
//
// Private to src/trace. One BinaryReader reads a .rptrace file block by
// block (binary_reader.cpp: the header and the block loop); the blocks of
// tables (NAMES, SOURCES, INIT, GLOBALS) are parsed in binary_tables.cpp,
// the EVENTS blocks and their records in binary_records.cpp. Every length
// read from the file is bounded by the bytes actually present, so corrupt
// input cannot make the reader allocate more than the file holds, loop, or
// crash: it ends in a sentence naming the file, the byte offset and the
// events read so far.
//
#pragma once

#include "binary_codec.h"
#include "binary_raw.h"
#include "racepredict/trace/binary_format.h"
#include "racepredict/trace/format.h"

#include <algorithm>
#include <istream>
#include <string>
#include <unordered_map>
#include <vector>

namespace racepredict::trace {

using codec::Cursor;
using codec::Status;

/// Payloads are read in steps of this size, so a corrupt length in a stream
/// whose size we do not know costs at most one step of memory beyond the data.
constexpr size_t kReadStep = 1 << 20;
/// Seqs above this are corruption (and keep seq arithmetic overflow-free).
constexpr uint64_t kMaxSeq = uint64_t{1} << 62;
/// The seq after `prev` with the record's delta; false when out of range.
inline bool nextSeq(uint64_t prev, uint64_t delta, uint64_t *seq) {
  if (delta > kMaxSeq || prev + 1 + delta > kMaxSeq)
    return false;
  *seq = prev + 1 + delta;
  return true;
}

/// Reads fields of one record or entry, remembering the first failure so
/// that the caller checks once per record instead of once per field.
struct Fields {
  Cursor &c;
  Status st = Status::Ok;
  uint64_t v() {
    uint64_t x = 0;
    if (st == Status::Ok)
      st = c.varint(&x);
    return x;
  }
  uint8_t b() {
    uint8_t x = 0;
    if (st == Status::Ok)
      st = c.byte(&x);
    return x;
  }
  std::string s() {
    std::string x;
    if (st == Status::Ok)
      st = c.string(&x);
    return x;
  }
  /// A count of items (minus `bias`) of at least one byte each; more than
  /// the bytes left means the block was cut (or is corrupt): reading them
  /// cannot succeed, and nothing is allocated for them.
  uint64_t count(uint64_t bias) {
    uint64_t n = v();
    if (st == Status::Ok && n > bias && n - bias > c.remaining())
      st = Status::Short;
    return n;
  }
};

inline bool sane(const std::string &s) {
  for (unsigned char ch : s)
    if (ch < 0x20 || ch == 0x7f)
      return false;
  return true;
}

class BinaryReader {
public:
  BinaryReader(std::istream &in, const std::string &name,
               const ReadOptions &opts)
      : in_(in), name_(name), opts_(opts) {}

  Expected<Trace> read(ReadInfo *info);

private:
  Error fail(uint64_t offset, const std::string &msg) const {
    return Error{name_ + ": byte " + std::to_string(offset) + " (after " +
                 std::to_string(raw_.events.size()) + " events): " + msg};
  }
  size_t readBytes(unsigned char *dst, size_t n) {
    in_.read(reinterpret_cast<char *>(dst), static_cast<std::streamsize>(n));
    size_t got = static_cast<size_t>(in_.gcount());
    offset_ += got;
    return got;
  }
  Expected<bool> header();
  /// Growing the event vectors by doubling copies and page-faults them
  /// again and again; a recorded trace takes 4-10 bytes per event, so size
  /// them once from the bytes left (never more than the file could hold).
  void reserveForFileSize() {
    std::streampos here = in_.tellg();
    if (here == std::streampos(-1))
      return;
    in_.seekg(0, std::ios::end);
    std::streampos end = in_.tellg();
    in_.seekg(here);
    if (end == std::streampos(-1) || end <= here) {
      in_.clear();
      return;
    }
    if (opts_.filter) { // it says how many it keeps, when it knows
      raw_.events.reserve(opts_.filter->expected);
      return;
    }
    // Capped: a huge corrupt file must not reserve gigabytes up front.
    size_t estimate =
        std::min<size_t>(static_cast<size_t>(end - here) / 4, size_t{1} << 24);
    raw_.events.reserve(estimate);
    if (raw_.version == 3)
      raw_.seqs.reserve(estimate);
  }
  /// Parses one block; sets raw_.cut when its payload ends before its length.
  Expected<bool> block(uint8_t type, Cursor &c, bool complete);
  Expected<bool> names(Cursor &c, bool complete);
  Expected<bool> sources(Cursor &c, bool complete);
  Expected<bool> inits(Cursor &c, bool complete);
  Expected<bool> globals(Cursor &c, bool complete);
  Expected<bool> events(Cursor &c, bool complete);
  /// One record; returns false (without an error) when it is incomplete.
  Expected<bool> record(Cursor &c, uint64_t threadKey, uint64_t *prevSeq);
  /// A v3 mark record: a ticket that orders the thread's earlier events.
  Expected<bool> markRecord(Fields &f, uint64_t start, uint64_t threadKey,
                            uint64_t *prevSeq);
  /// A v2 stack record: moves the thread's current stack node.
  Expected<bool> stackRecord(Fields &f, uint64_t start, uint64_t threadKey);
  /// A v4 segment record: other threads' events come before the next one.
  Expected<bool> segmentRecord(Fields &f, uint64_t start, uint64_t *prevSeq);

  std::istream &in_;
  const std::string &name_;
  const ReadOptions &opts_;
  uint64_t offset_ = 0;
  RawTrace raw_;
  std::unordered_map<uint64_t, size_t> sourceIndex_; ///< duplicate check
  std::vector<uint64_t> list_; ///< scratch: a record's dependences or args
  uint64_t prevLoc_ = 0;   ///< v2: previous location key of the EVENTS block
  uint64_t prevOrder_ = 0; ///< v3: previous stripe-order field of the block
  /// v3: each thread's events so far (branch dependences count back).
  std::unordered_map<uint64_t, uint64_t> eventsOfThread_;
  /// v2: each thread's current call-stack node (carried across its blocks).
  std::unordered_map<uint64_t, uint32_t> stackOfThread_;
};

// The entry parsers (tables and the EVENTS block header) share one shape: an
// entry that runs out of bytes ends the block if the block was cut, and is
// corruption otherwise.
#define RACEPREDICT_CHECK_ENTRY(f, start, what)                                \
  if ((f).st == Status::Bad)                                                   \
    return fail(start, "malformed number in " what);                           \
  if ((f).st == Status::Short) {                                               \
    if (complete)                                                              \
      return fail(start, what " runs past the end of its block");              \
    return true;                                                               \
  }

} // namespace racepredict::trace
