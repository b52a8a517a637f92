//===- tools/racepredict/program_input.cpp - Same input for every run -----===//
#include "program_input.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <unistd.h>

namespace racepredict::tool {

Expected<std::string> makeWorkDir(const std::string &prefix) {
  const char *tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp && *tmp ? tmp : "/tmp") + "/" + prefix + "-XXXXXX";
  if (!mkdtemp(pattern.data()))
    return Error{"cannot create a temporary directory like '" + pattern + "'"};
  return pattern;
}

void removeTree(const std::string &dir) {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

Expected<std::string> programStdin(const std::string &stdinFlag,
                                   const std::string &workDir) {
  if (!stdinFlag.empty()) {
    if (access(stdinFlag.c_str(), R_OK) != 0)
      return Error{"cannot read the --stdin file '" + stdinFlag + "'"};
    return stdinFlag;
  }
  if (isatty(0))
    return std::string();
  std::string copy = workDir + "/stdin";
  std::ofstream out(copy, std::ios::binary);
  out << std::cin.rdbuf();
  out.close();
  std::cin.clear();
  return copy;
}

std::string shellQuote(const std::string &s) {
  bool plain = !s.empty();
  for (char c : s)
    plain &= std::isalnum(static_cast<unsigned char>(c)) ||
             std::string("-_./=:,+@%").find(c) != std::string::npos;
  if (plain)
    return s;
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

} // namespace racepredict::tool
