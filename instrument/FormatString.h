//===- instrument/FormatString.h - The arguments a printf format reads ----===//
//
// Plain C++ (no LLVM), so that it is tested directly: which of a printf
// call's variadic arguments are strings the call reads (%s), and how far
// (the precision, a constant or another argument), by the grammar the
// runtime also reads formats with (racepredict/abi/printf_format.h).
//
#pragma once

#include <string_view>
#include <vector>

namespace racepredict {

/// A %s conversion: the variadic argument (0 = the first after the format)
/// holding the string, and how many bytes it reads at most.
struct FormatStringArg {
  unsigned Arg = 0;
  /// A constant precision (%.8s), -1: none.
  long Precision = -1;
  /// The argument holding the precision (%.*s), -1: none.
  int PrecisionArg = -1;
};

/// The %s conversions of `Format`, in order; false when the format cannot
/// be followed statically (positional arguments, %1$s; an unknown
/// conversion): the caller then records nothing. Wide strings (%ls, %S) are
/// not byte strings and are skipped.
bool stringArguments(std::string_view Format,
                     std::vector<FormatStringArg> &Out);

} // namespace racepredict
