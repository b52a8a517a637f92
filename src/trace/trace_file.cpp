//===- trace/trace_file.cpp - Open any trace file by its content ----------===//
//
// Detection by content, not by extension, so that a renamed or piped trace
// still opens: the binary magic first; then a RAPID STD line (`T1|w(x)|3`: a
// text-format event line always has a space between thread and op, an STD
// line never does); otherwise the text format, whose errors are the most
// helpful ones for a file that is none of the three.
//
#include "racepredict/trace/trace_file.h"

#include "racepredict/support/file_io.h"
#include "racepredict/trace/binary_format.h"
#include "racepredict/trace/format.h"
#include "racepredict/trace/std_format.h"
#include "racepredict/trace/text_format.h"

#include <cstring>
#include <sstream>

namespace racepredict::trace {
namespace {

bool looksLikeStdTrace(std::istream &in) {
  // The first meaningful line within the first 4 KiB decides, so a huge
  // file without newlines is not read to its end.
  std::streampos pos = in.tellg();
  std::string head(4096, '\0');
  in.read(&head[0], static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  in.clear();
  in.seekg(pos);
  std::istringstream lines(head);
  std::string line;
  while (std::getline(lines, line)) {
    size_t b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos || line[b] == '#')
      continue;
    size_t bar = line.find('|');
    size_t space = line.find_first_of(" \t", b);
    return bar != std::string::npos &&
           line.find('(', bar) != std::string::npos &&
           (space == std::string::npos || space > line.find('(', bar));
  }
  return false;
}

/// A file shorter than the binary magic whose bytes begin it: a recording
/// cut while it wrote its header (the text reader would call it an unknown
/// op).
bool cutInMagic(std::istream &in) {
  char head[sizeof(RP_TRACE_MAGIC)] = {};
  std::streampos pos = in.tellg();
  in.read(head, sizeof(head));
  size_t got = static_cast<size_t>(in.gcount());
  in.clear();
  in.seekg(pos);
  return got > 0 && got < sizeof(head) &&
         std::memcmp(head, RP_TRACE_MAGIC, got) == 0;
}

/// What a trace without events means, by format: every reader accepts
/// one, no command can do anything useful with it, and "0 events, no race"
/// would pass for a clean run.
Error noEvents(const std::string &path, TraceFormat format) {
  if (format == TraceFormat::Binary)
    return Error{path + ": the recording has no events (the program ended "
                        "or was killed before it recorded anything)"};
  return Error{path + ": no events (only blank lines, comments or `init` "
                      "lines)"};
}

} // namespace

Expected<Trace> readTraceFile(const std::string &path, const ReadOptions &opts,
                              ReadInfo *info) {
  auto opened = openInput(path, "trace");
  if (!opened)
    return opened.error();
  std::ifstream &in = *opened;
  if (in.peek() == std::char_traits<char>::eof())
    return Error{path + ": empty file (0 bytes): not a trace"};
  if (!opts.format && cutInMagic(in))
    return Error{path + ": truncated at byte " +
                 std::to_string(static_cast<long long>(
                     in.rdbuf()->pubseekoff(0, std::ios::end))) +
                 " after 0 events (in the file header)"};
  TraceFormat format = TraceFormat::Text;
  if (opts.format)
    format = *opts.format;
  else if (looksLikeBinaryTrace(in))
    format = TraceFormat::Binary;
  else if (looksLikeStdTrace(in))
    format = TraceFormat::Std;
  if (opts.filter && format != TraceFormat::Binary)
    return Error{path + ": only a binary trace can be read record by record"};
  ReadInfo local;
  ReadInfo &ri = info ? *info : local;
  ri = ReadInfo{};
  ri.format = format;
  Expected<Trace> t =
      format == TraceFormat::Binary ? parseBinaryTrace(in, path, opts, &ri)
      : format == TraceFormat::Std  ? parseStdTrace(in, path)
                                    : parseTextTrace(in, path, &ri.eventLines);
  // A filter may keep nothing (it only looks at the records).
  if (t && t->events.empty() && !opts.filter)
    return noEvents(path, format);
  return t;
}

} // namespace racepredict::trace
