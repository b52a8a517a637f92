//===- trace/binary_format.h - Streaming binary trace reader/writer -------===//
//
// The layout is specified in trace/format.h (shared with the runtime).
//
#pragma once

#include "racepredict/support/error.h"
#include "racepredict/trace/trace.h"
#include "racepredict/trace/trace_file.h"

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

namespace racepredict::trace {

/// How the binary reader names a raw key no NAMES entry names ("0x1f"); the
/// replay names the objects of a run the same way.
inline std::string hexKey(uint64_t key) {
  static const char kDigits[] = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), kDigits[key & 15]);
    key >>= 4;
  } while (key);
  return "0x" + s;
}

/// Writes `t` as a binary trace of the version-2 layout (one EVENTS block
/// per run of events of one thread, bounded size), ending with an END
/// block; with `version` 4, the recorder's layout (no seq in any record,
/// segment records for the other threads' events between two of a block).
void writeBinaryTrace(const Trace &t, std::ostream &out, unsigned version = 2);

/// Parses a binary trace; `name` is used in error messages.
Expected<Trace> parseBinaryTrace(std::istream &in, const std::string &name,
                                 const ReadOptions &opts, ReadInfo *info);

/// True if the stream starts with the binary magic (does not consume it).
bool looksLikeBinaryTrace(std::istream &in);
/// The format version in a binary trace's header (trace/format.h), or
/// nullopt when `in` does not start with one; `in` stays where it was.
std::optional<unsigned> binaryTraceVersion(std::istream &in);

} // namespace racepredict::trace
