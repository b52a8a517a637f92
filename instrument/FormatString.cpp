//===- instrument/FormatString.cpp - The arguments a printf format reads --===//
#include "FormatString.h"

#include "racepredict/abi/printf_format.h"

namespace racepredict {

bool stringArguments(std::string_view F, std::vector<FormatStringArg> &Out) {
  unsigned Next = 0; // the next variadic argument
  return forEachPrintfConversion(
      F.data(), F.size(), [&](const PrintfConversion &C) {
        if (C.widthArg)
          ++Next;
        int PrecisionArg = C.precisionArg ? static_cast<int>(Next++) : -1;
        if (C.arg == PrintfArg::None)
          return;
        unsigned Arg = Next++;
        if (C.readsString())
          Out.push_back({Arg, C.precision, PrecisionArg});
      });
}

} // namespace racepredict
