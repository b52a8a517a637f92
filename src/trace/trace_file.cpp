//===- trace/trace_file.cpp - Open any trace file by its content ----------===//
//
// Detection by content, not by extension, so that a renamed or piped trace
// still opens: the binary magic first; then a RAPID STD line (`T1|w(x)|3`: a
// text-format event line always has a space between thread and op, an STD
// line never does); otherwise the text format, whose errors are the most
// helpful ones for a file that is none of the three.
//
#include "racepredict/trace/trace_file.h"

#include "racepredict/trace/binary_format.h"
#include "racepredict/trace/std_format.h"
#include "racepredict/trace/text_format.h"

#include <fstream>
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

} // namespace

Expected<Trace> readTraceFile(const std::string &path, const ReadOptions &opts,
                              ReadInfo *info) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Error{"cannot open trace '" + path + "'"};
  TraceFormat format = TraceFormat::Text;
  if (opts.format)
    format = *opts.format;
  else if (looksLikeBinaryTrace(in))
    format = TraceFormat::Binary;
  else if (looksLikeStdTrace(in))
    format = TraceFormat::Std;
  ReadInfo local;
  ReadInfo &ri = info ? *info : local;
  ri = ReadInfo{};
  ri.format = format;
  switch (format) {
  case TraceFormat::Binary:
    return parseBinaryTrace(in, path, opts, &ri);
  case TraceFormat::Std:
    return parseStdTrace(in, path);
  case TraceFormat::Text:
    break;
  }
  return parseTextTrace(in, path);
}

} // namespace racepredict::trace
