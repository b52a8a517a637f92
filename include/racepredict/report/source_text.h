//===- report/source_text.h - The source line behind a location -----------===//
//
// Witness steps are easier to follow with the code they execute next to
// them; programs recorded on this machine have their sources here. Files
// are read once and cached; unreadable files give "".
//
#pragma once

#include "racepredict/trace/trace.h"

#include <map>
#include <string>
#include <vector>

namespace racepredict::report {

class SourceText {
public:
  /// Line `line` (1-based) of `file`, whitespace-trimmed and cut to
  /// `maxLen` characters; "" when the file or line cannot be read.
  std::string line(const std::string &file, uint32_t line, size_t maxLen = 80);
  std::string line(const trace::SourceLoc &loc, size_t maxLen = 80) {
    return line(loc.file, loc.line, maxLen);
  }

private:
  std::map<std::string, std::vector<std::string>> files_;
};

/// `file.c:12:3` with the directory dropped (for compact step lists).
std::string shortLocation(const trace::SourceLoc &loc);

} // namespace racepredict::report
