//===- trace/trace_file.h - Open any trace file by its content ------------===//
#pragma once

#include "racepredict/support/error.h"
#include "racepredict/trace/record_filter.h"
#include "racepredict/trace/trace.h"

#include <string>

namespace racepredict::trace {

enum class TraceFormat { Text, Binary, Std };

struct ReadOptions {
  /// Accept a binary trace without its END block (the program was killed):
  /// the events up to the last complete record are returned and
  /// `ReadInfo::truncated` is set. Without it such a file is an error.
  bool allowTruncated = false;
  /// Force a format instead of detecting it (binary by magic, else text).
  std::optional<TraceFormat> format;
  /// Binary traces of format v4 and later: store only the records this
  /// filter keeps (trace/record_filter.h); other formats are an error.
  RecordFilter *filter = nullptr;
};

struct ReadInfo {
  TraceFormat format = TraceFormat::Text;
  bool truncated = false;
  /// For a truncated file: `FILE: truncated at byte N after M events`.
  std::string truncation;
  /// Text traces: each event's line in the file (messages name it).
  std::vector<uint32_t> eventLines;
};

/// Reads a trace in any supported format. Errors name the file and the
/// position (line for text, byte offset and event count for binary).
Expected<Trace> readTraceFile(const std::string &path,
                              const ReadOptions &opts = {},
                              ReadInfo *info = nullptr);

} // namespace racepredict::trace
