//===- format_string_test.cpp - The strings a printf format reads ---------===//
#include "FormatString.h"

#include "racepredict/abi/printf_format.h"

#include <gtest/gtest.h>

#include <string>

using namespace racepredict;

namespace {

/// "arg[.precision|*precisionArg]" for each %s, or "-" when the format is
/// refused.
std::string strings(const char *format) {
  std::vector<FormatStringArg> out;
  if (!stringArguments(format, out))
    return "-";
  std::string s;
  for (const FormatStringArg &a : out) {
    s += (s.empty() ? "" : " ") + std::to_string(a.Arg);
    if (a.Precision >= 0)
      s += "." + std::to_string(a.Precision);
    if (a.PrecisionArg >= 0)
      s += "*" + std::to_string(a.PrecisionArg);
  }
  return s;
}

} // namespace

TEST(FormatString, StringsAmongOtherConversions) {
  EXPECT_EQ(strings("%s"), "0");
  EXPECT_EQ(strings("job %d: %s (%s)\n"), "1 2");
  EXPECT_EQ(strings("%5.2f %c %p %s %lu %zu %s"), "3 6");
  EXPECT_EQ(strings("no conversion at all\n"), "");
  EXPECT_EQ(strings("100%% of %s"), "0");
  EXPECT_EQ(strings("%%s is literal"), "");
}

TEST(FormatString, PrecisionBoundsTheRead) {
  EXPECT_EQ(strings("%.8s|%-10.3s|%.s"), "0.8 1.3 2.0");
  EXPECT_EQ(strings("%.*s"), "1*0");
  EXPECT_EQ(strings("%*s %*.*s"), "1 4*3");
  EXPECT_EQ(strings("%-*d %s"), "2");
}

TEST(FormatString, WideStringsAndArgumentlessConversions) {
  EXPECT_EQ(strings("%ls %S %s"), "2");
  EXPECT_EQ(strings("%m: %s"), "0");
  EXPECT_EQ(strings("%n%s"), "1");
  EXPECT_EQ(strings("%hhd %lld %Lf %jd %td %s"), "5");
}

TEST(FormatString, RefusesWhatCannotBeFollowed) {
  EXPECT_EQ(strings("%1$s %2$s"), "-");
  EXPECT_EQ(strings("%s %"), "-");
  EXPECT_EQ(strings("%k"), "-");
  EXPECT_EQ(strings("%ll"), "-");
}

// The class of each argument, which the runtime asks va_arg for when it
// walks a vprintf-family call's va_list (stdio_hooks.cpp): one wrong size
// and every later argument is misread.
TEST(PrintfFormat, ArgumentClassesAsTheCallingConventionTakesThem) {
  auto classes = [](const char *format) {
    std::string s;
    bool ok = forEachPrintfConversion(
        format, std::char_traits<char>::length(format),
        [&](const PrintfConversion &c) {
          if (c.widthArg)
            s += "*";
          if (c.precisionArg)
            s += ".";
          s += "-ildLp"[static_cast<int>(c.arg)];
        });
    return ok ? s : "refused";
  };
  EXPECT_EQ(classes("%d %hhd %hd %c %lc %u %x"), "iiiiiii");
  EXPECT_EQ(classes("%ld %lld %qd %jd %zu %Zd %td %lu"), "llllllll");
  EXPECT_EQ(classes("%f %e %g %a %lf %Lf %LG"), "dddddLL");
  EXPECT_EQ(classes("%s %ls %p %n %S %m"), "ppppp-");
  EXPECT_EQ(classes("%*d %.*f %*.*s %-*s"), "*i.d*.p*p");
  EXPECT_EQ(classes("%5$s"), "refused");
}
