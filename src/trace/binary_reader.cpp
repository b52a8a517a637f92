//===- trace/binary_reader.cpp - Streaming reader of .rptrace files -------===//
//
// Reads versions 1 to 7 of trace/format.h block by block (a block is
// held in memory, the file never is): the file header, the block loop and
// the truncation rule; the blocks themselves are parsed in
// binary_tables.cpp and binary_records.cpp (binary_reader.h).
//
// Raw keys (addresses in recorded traces, dense ids in converted ones) are
// mapped to provisional per-name-space ids while reading; names are bound at
// the end (binary_resolve.cpp) because a NAMES block may follow the events
// that use its keys, and seqs become event indices only once all blocks are
// read, since blocks of different threads interleave.
//
#include "binary_reader.h"

#include <algorithm>

namespace racepredict::trace {

Expected<bool> BinaryReader::header() {
  unsigned char h[RP_HEADER_SIZE];
  size_t got = readBytes(h, sizeof(h));
  if (got < sizeof(RP_TRACE_MAGIC) ||
      std::string(reinterpret_cast<char *>(h), sizeof(RP_TRACE_MAGIC)) !=
          std::string(RP_TRACE_MAGIC, sizeof(RP_TRACE_MAGIC)))
    return Error{name_ + ": not a racepredict binary trace (no '" +
                 RP_TRACE_MAGIC + "' magic at byte 0)"};
  if (got < sizeof(h))
    return Error{name_ + ": truncated at byte " + std::to_string(got) +
                 " after 0 events (in the file header)"};
  unsigned version = h[8] | unsigned{h[9]} << 8;
  raw_.version = version;
  if (version < RP_TRACE_MIN_VERSION || version > RP_TRACE_VERSION)
    return Error{name_ + ": binary trace format version " +
                 std::to_string(version) +
                 " is not supported: this racepredict reads versions " +
                 std::to_string(RP_TRACE_MIN_VERSION) + " to " +
                 std::to_string(RP_TRACE_VERSION) +
                 " (use the racepredict that recorded it to convert it to "
                 "text)"};
  if (opts_.filter && version < 4)
    return Error{name_ + ": binary trace format version " +
                 std::to_string(version) +
                 " cannot be read record by record (version 4 and later)"};
  raw_.filtered = opts_.filter != nullptr;
  raw_.namesGiven = opts_.filter && opts_.filter->givesNames;
  if (h[10] != 1)
    return fail(10, "byte order " + std::to_string(h[10]) +
                        " is not supported (1 = little-endian)");
  if (h[11] != 4 && h[11] != 8)
    return fail(11, "pointer width " + std::to_string(h[11]) +
                        " is not supported (4 or 8 bytes)");
  if (uint32_t flags = codec::getU32(h + 12))
    return fail(12, "unknown header flags " + hexKey(flags));
  return true;
}

Expected<Trace> BinaryReader::read(ReadInfo *info) {
  auto h = header();
  if (!h)
    return h.error();
  reserveForFileSize();
  std::vector<unsigned char> buf;
  bool sawEnd = false;
  while (!sawEnd && !raw_.cut) {
    uint64_t start = offset_;
    unsigned char bh[RP_BLOCK_HEADER_SIZE];
    if (readBytes(bh, sizeof(bh)) < sizeof(bh)) {
      raw_.cut = true;
      break;
    }
    uint8_t type = bh[0];
    uint32_t len = codec::getU32(bh + 4);
    if (type < RP_BLOCK_NAMES || type > RP_BLOCK_STOP ||
        (type == RP_BLOCK_GLOBALS && raw_.version < 2))
      return fail(start, "unknown block type " + std::to_string(type));
    if (type == RP_BLOCK_END) {
      if (len != 0)
        return fail(start, "the END block has a payload (" +
                               std::to_string(len) + " bytes)");
      if (in_.peek() != std::char_traits<char>::eof())
        return fail(offset_, "data after the END block");
      sawEnd = true;
      break;
    }
    buf.clear();
    while (buf.size() < len) {
      size_t old = buf.size();
      size_t step = std::min<size_t>(len - old, kReadStep);
      buf.resize(old + step);
      size_t got = readBytes(buf.data() + old, step);
      if (got < step) {
        buf.resize(old + got);
        break;
      }
    }
    bool complete = buf.size() == len;
    Cursor c(buf.data(), buf.data() + buf.size(), start + sizeof(bh));
    auto r = block(type, c, complete);
    if (!r)
      return r.error();
    if (!complete)
      raw_.cut = true;
  }
  if (in_.bad())
    return fail(offset_, "read error");
  std::string cutMsg = name_ + ": truncated at byte " +
                       std::to_string(offset_) + " after " +
                       std::to_string(raw_.events.size()) + " events";
  if (raw_.cut && !opts_.allowTruncated)
    return Error{cutMsg + " (no END block: the recording was cut; pass "
                          "--allow-truncated to use the events before the "
                          "cut)"};
  auto t = resolveRawTrace(raw_, name_);
  if (t && info) {
    info->format = TraceFormat::Binary;
    info->truncated = raw_.cut;
    info->truncation = raw_.cut ? cutMsg : std::string();
  }
  return t;
}

Expected<bool> BinaryReader::block(uint8_t type, Cursor &c, bool complete) {
  switch (type) {
  case RP_BLOCK_NAMES:
    return names(c, complete);
  case RP_BLOCK_SOURCES:
    return sources(c, complete);
  case RP_BLOCK_INIT:
    return inits(c, complete);
  case RP_BLOCK_GLOBALS:
    return globals(c, complete);
  case RP_BLOCK_STOP: {
    uint64_t start = c.offset();
    std::string err = readStopBlock(c, complete, raw_);
    if (!err.empty())
      return fail(start, err);
    return true;
  }
  default:
    return events(c, complete);
  }
}

Expected<Trace> parseBinaryTrace(std::istream &in, const std::string &name,
                                 const ReadOptions &opts, ReadInfo *info) {
  return BinaryReader(in, name, opts).read(info);
}

} // namespace racepredict::trace
