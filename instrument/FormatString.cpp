//===- instrument/FormatString.cpp - The arguments a printf format reads --===//
#include "FormatString.h"

#include <cstring>

namespace racepredict {

bool stringArguments(std::string_view F, std::vector<FormatStringArg> &Out) {
  unsigned Next = 0; // the next variadic argument
  auto IsDigit = [](char C) { return C >= '0' && C <= '9'; };
  for (size_t I = 0; I < F.size(); ++I) {
    if (F[I] != '%')
      continue;
    if (++I < F.size() && F[I] == '%')
      continue;
    // "%N$": a positional argument; then every conversion is one.
    size_t J = I;
    while (J < F.size() && IsDigit(F[J]))
      ++J;
    if (J > I && J < F.size() && F[J] == '$')
      return false;
    while (I < F.size() && std::strchr("-+ #0'I", F[I]))
      ++I;
    if (I < F.size() && F[I] == '*') {
      ++Next; // the width
      ++I;
    } else {
      while (I < F.size() && IsDigit(F[I]))
        ++I;
    }
    long Precision = -1;
    int PrecisionArg = -1;
    if (I < F.size() && F[I] == '.') {
      ++I;
      if (I < F.size() && F[I] == '*') {
        PrecisionArg = static_cast<int>(Next++);
        ++I;
      } else {
        Precision = 0;
        while (I < F.size() && IsDigit(F[I]) && Precision < (1L << 30))
          Precision = Precision * 10 + (F[I++] - '0');
      }
    }
    bool Wide = false;
    while (I < F.size() && std::strchr("hlLqjzZt", F[I])) {
      Wide = Wide || F[I] == 'l';
      ++I;
    }
    if (I >= F.size())
      return false; // a format ending inside a conversion
    char C = F[I];
    if (C == 'm')
      continue; // strerror(errno): no argument
    if (!std::strchr("diouxXeEfFgGaAcCsSpn", C))
      return false;
    unsigned Arg = Next++;
    if (C == 's' && !Wide)
      Out.push_back({Arg, Precision, PrecisionArg});
  }
  return true;
}

} // namespace racepredict
