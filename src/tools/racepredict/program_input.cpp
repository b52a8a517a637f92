//===- tools/racepredict/program_input.cpp - Same input for every run -----===//
#include "program_input.h"

#include "racepredict/support/file_io.h"

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
    auto in = openInput(stdinFlag, "--stdin file");
    if (!in)
      return in.error();
    return stdinFlag;
  }
  if (isatty(0))
    return std::string();
  std::string copy = workDir + "/stdin";
  auto out = OutputFile::open(copy, "copy of standard input",
                              OutputFile::Kind::Binary);
  if (!out)
    return out.error();
  // An empty stdin makes `<<` set failbit without writing: not an error.
  if (std::cin.peek() != std::char_traits<char>::eof())
    out->stream() << std::cin.rdbuf();
  std::cin.clear();
  auto done = out->finish();
  if (!done)
    return done.error();
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
