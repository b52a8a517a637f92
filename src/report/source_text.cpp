//===- report/source_text.cpp - The source line behind a location ---------===//
#include "racepredict/report/source_text.h"

#include <fstream>

namespace racepredict::report {

std::string SourceText::line(const std::string &file, uint32_t line,
                             size_t maxLen) {
  if (file.empty() || line == 0)
    return "";
  auto it = files_.find(file);
  if (it == files_.end()) {
    std::vector<std::string> lines;
    std::ifstream in(file);
    // Source files only: a huge or binary "file" is not worth caching.
    for (std::string l; lines.size() < 200000 && std::getline(in, l);)
      lines.push_back(l);
    it = files_.emplace(file, std::move(lines)).first;
  }
  if (line > it->second.size())
    return "";
  std::string s = it->second[line - 1];
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos)
    return "";
  size_t e = s.find_last_not_of(" \t\r");
  s = s.substr(b, e - b + 1);
  for (char &c : s)
    if (c == '\t')
      c = ' ';
  if (s.size() > maxLen)
    s = s.substr(0, maxLen - 3) + "...";
  return s;
}

std::string shortLocation(const trace::SourceLoc &loc) {
  std::string s = loc.str();
  size_t slash = loc.file.rfind('/');
  return slash == std::string::npos ? s : s.substr(slash + 1);
}

} // namespace racepredict::report
