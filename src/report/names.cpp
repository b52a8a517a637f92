//===- report/names.cpp - Names as a C++ developer reads them -------------===//
#include "racepredict/report/names.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cxxabi.h>
#include <filesystem>
#include <memory>

namespace racepredict::report {

std::string functionName(const std::string &recorded) {
  // Itanium mangled names start with _Z; anything else (C functions, names
  // of old traces or text traces) is shown as recorded.
  if (recorded.size() < 3 || recorded.compare(0, 2, "_Z") != 0)
    return recorded;
  int status = 0;
  std::unique_ptr<char, void (*)(void *)> d(
      abi::__cxa_demangle(recorded.c_str(), nullptr, nullptr, &status),
      std::free);
  return status == 0 && d ? std::string(d.get()) : recorded;
}

std::string demangleWords(const std::string &text) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = text.find("_Z", i);
    // Only at the start of a word.
    while (j != std::string::npos && j > 0 &&
           (std::isalnum(static_cast<unsigned char>(text[j - 1])) ||
            text[j - 1] == '_'))
      j = text.find("_Z", j + 2);
    if (j == std::string::npos)
      break;
    size_t k = j;
    while (k < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[k])) ||
            text[k] == '_' || text[k] == '.' || text[k] == '$'))
      ++k;
    out += text.substr(i, j - i) + functionName(text.substr(j, k - j));
    i = k;
  }
  return out + text.substr(std::min(i, text.size()));
}

std::string shortFunctionName(const std::string &recorded) {
  std::string full = functionName(recorded);
  // Drop bracketed parts: template arguments <…> and the parameter list
  // (…); "operator<" and "(anonymous namespace)" keep their words.
  std::string out;
  int angle = 0, paren = 0;
  for (size_t i = 0; i < full.size(); ++i) {
    char c = full[i];
    if (full.compare(i, 21, "(anonymous namespace)") == 0 && !angle && !paren) {
      out += "(anonymous namespace)";
      i += 20;
      continue;
    }
    if (full.compare(i, 8, "operator") == 0 && !angle && !paren) {
      // operator<, operator<<, operator(): the symbol is part of the name.
      size_t j = i + 8;
      if (full.compare(j, 2, "()") == 0)
        j += 2;
      else
        while (j < full.size() && full[j] != '(' && full[j] != ' ')
          ++j;
      out += full.substr(i, j - i);
      i = j - 1;
      continue;
    }
    if (c == '<')
      ++angle;
    else if (c == '>' && angle)
      --angle;
    else if (c == '(')
      ++paren;
    else if (c == ')' && paren)
      --paren;
    else if (!angle && !paren)
      out += c;
  }
  // A const member function keeps " const" after its parameters.
  while (!out.empty() && out.back() == ' ')
    out.pop_back();
  if (out.size() > 6 && out.compare(out.size() - 6, 6, " const") == 0)
    out.resize(out.size() - 6);
  return out.empty() ? full : out;
}

std::string locationText(const trace::SourceLoc &l) {
  if (l.file.empty() || l.line == 0)
    return "<unknown>";
  // `/usr/lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/...` as
  // the path it is.
  trace::SourceLoc n = l;
  n.file = std::filesystem::path(l.file).lexically_normal().string();
  return n.str();
}

std::string baseName(const std::string &file) {
  size_t slash = file.rfind('/');
  return slash == std::string::npos ? file : file.substr(slash + 1);
}

} // namespace racepredict::report
