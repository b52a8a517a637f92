/*===- abi/printf_format.h - The conversions of a printf format -*- C++ -*-===*/
/*
 * Header-only and allocation-free, for both sides of the ABI: the pass reads
 * a constant format to find the %s arguments of a printf-family call
 * (instrument/FormatString.cpp), the runtime reads a format at run time to
 * walk a vprintf-family call's va_list (runtime/record/stdio_hooks.cpp).
 * The grammar is glibc's: %[flags][width][.precision][length]conversion,
 * width and precision constants or `*` (an int argument).
 */
#ifndef RACEPREDICT_ABI_PRINTF_FORMAT_H
#define RACEPREDICT_ABI_PRINTF_FORMAT_H

#include <stddef.h>

namespace racepredict {

/// The argument a conversion takes, by its class in the calling
/// convention (what va_arg must be asked for).
enum class PrintfArg { None, Int, Long, Double, LongDouble, Pointer };

/// One conversion that takes arguments (%% is none).
struct PrintfConversion {
  char conversion = 0;
  bool widthArg = false;     ///< `*` width: an int argument first
  bool precisionArg = false; ///< `.*` precision: an int argument next
  long precision = -1;       ///< a constant precision, -1: none
  bool wide = false;         ///< an `l` length: %ls is a wide string
  PrintfArg arg = PrintfArg::None;
  /// A byte string the call reads (%s without `l`).
  bool readsString() const { return conversion == 's' && !wide; }
};

/// Calls visit(const PrintfConversion &) for each conversion of the
/// `n`-byte format `f`, in order; false when it cannot be followed
/// (positional arguments, %1$s; an unknown conversion; a format ending
/// inside one): the caller then records nothing more of it.
template <typename Visit>
bool forEachPrintfConversion(const char *f, size_t n, Visit visit) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  auto oneOf = [](char c, const char *set) {
    for (; *set; ++set)
      if (c == *set)
        return true;
    return false;
  };
  for (size_t i = 0; i < n; ++i) {
    if (f[i] != '%')
      continue;
    if (++i < n && f[i] == '%')
      continue;
    size_t j = i;
    while (j < n && digit(f[j]))
      ++j;
    if (j > i && j < n && f[j] == '$')
      return false;
    PrintfConversion c;
    while (i < n && oneOf(f[i], "-+ #0'I"))
      ++i;
    if (i < n && f[i] == '*') {
      c.widthArg = true;
      ++i;
    } else {
      while (i < n && digit(f[i]))
        ++i;
    }
    if (i < n && f[i] == '.') {
      ++i;
      if (i < n && f[i] == '*') {
        c.precisionArg = true;
        ++i;
      } else {
        c.precision = 0;
        while (i < n && digit(f[i]) && c.precision < (1L << 30))
          c.precision = c.precision * 10 + (f[i++] - '0');
      }
    }
    unsigned longs = 0;
    bool big = false, half = false;
    while (i < n && oneOf(f[i], "hlLqjzZt")) {
      longs += f[i] == 'l';
      big = big || oneOf(f[i], "LqjzZt");
      half = half || f[i] == 'h';
      ++i;
    }
    if (i >= n)
      return false;
    c.conversion = f[i];
    c.wide = longs > 0;
    if (c.conversion == 'm') {
      c.arg = PrintfArg::None; // strerror(errno)
    } else if (oneOf(c.conversion, "diouxXcC")) {
      c.arg =
          (longs || big) && !half && c.conversion != 'c' && c.conversion != 'C'
              ? PrintfArg::Long
              : PrintfArg::Int;
    } else if (oneOf(c.conversion, "eEfFgGaA")) {
      c.arg = f[i - 1] == 'L' ? PrintfArg::LongDouble : PrintfArg::Double;
    } else if (oneOf(c.conversion, "sSpn")) {
      c.arg = PrintfArg::Pointer;
    } else {
      return false;
    }
    visit(static_cast<const PrintfConversion &>(c));
  }
  return true;
}

} // namespace racepredict

#endif
