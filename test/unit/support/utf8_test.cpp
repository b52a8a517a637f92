//===- test/unit/support/utf8_test.cpp - Names are bytes ------------------===//
#include "racepredict/support/utf8.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace racepredict;

TEST(Utf8, ValidTextIsUnchanged) {
  for (const char *s : {"", "plain", "caf\xc3\xa9.c", "\xe2\x82\xac 5",
                        "\xf0\x9f\x98\x80", "\xf4\x8f\xbf\xbf"}) {
    EXPECT_TRUE(isUtf8(s)) << s;
    EXPECT_EQ(escapeNonUtf8(s), s);
  }
}

TEST(Utf8, EveryBadByteIsEscaped) {
  // Latin-1, a lone continuation byte, an overlong '/', a surrogate, a code
  // point above U+10FFFF and a sequence cut by the end of the string.
  EXPECT_EQ(escapeNonUtf8("caf\xe9.c"), "caf\\xE9.c");
  EXPECT_EQ(escapeNonUtf8("a\x80z"), "a\\x80z");
  EXPECT_EQ(escapeNonUtf8("\xc0\xaf"), "\\xC0\\xAF");
  EXPECT_EQ(escapeNonUtf8("\xed\xa0\x80"), "\\xED\\xA0\\x80");
  EXPECT_EQ(escapeNonUtf8("\xf4\x90\x80\x80"), "\\xF4\\x90\\x80\\x80");
  EXPECT_EQ(escapeNonUtf8("ok\xe2\x82"), "ok\\xE2\\x82");
  // A bad byte does not swallow the valid character after it.
  EXPECT_EQ(escapeNonUtf8("\xe2\xc3\xa9"), "\\xE2\xc3\xa9");
  for (const char *s : {"caf\xe9", "\xc0\xaf", "\xed\xa0\x80", "ok\xe2\x82"})
    EXPECT_FALSE(isUtf8(s)) << s;
}

TEST(Utf8, JsonTextEscapesStringsAndKeys) {
  nlohmann::ordered_json j{
      {"loc", "caf\xe9.c:3"}, {"frames", {"f\xff", "ok"}}, {"n", 3}};
  j["names"]["entr\xe9"] = "x";
  EXPECT_EQ(jsonText(j, -1),
            "{\"loc\":\"caf\\\\xE9.c:3\",\"frames\":[\"f\\\\xFF\",\"ok\"],"
            "\"n\":3,\"names\":{\"entr\\\\xE9\":\"x\"}}");
}

TEST(Utf8, FilterEscapesAcrossAnySplitOfTheWrites) {
  std::string in = "a \xc3\xa9 b \xe9 c \xf0\x9f\x98\x80 d \xe2\x82";
  std::string want = escapeNonUtf8(in);
  // Every way of cutting the input into two writes.
  for (size_t cut = 0; cut <= in.size(); ++cut) {
    std::ostringstream sink;
    {
      Utf8Filter f(sink.rdbuf());
      std::ostream out(&f);
      out << in.substr(0, cut);
      out.flush();
      out << in.substr(cut);
    }
    EXPECT_EQ(sink.str(), want) << "cut at " << cut;
  }
  // One byte at a time (overflow instead of xsputn).
  std::ostringstream sink;
  {
    Utf8Filter f(sink.rdbuf());
    std::ostream out(&f);
    for (char c : in)
      out.put(c);
  }
  EXPECT_EQ(sink.str(), want);
}

TEST(Utf8, UnescapeGivesTheBytesBack) {
  for (const char *s :
       {"caf\xe9.c", "a\x80z\xff", "plain \\x41 stays", "\xed\xa0\x80"})
    EXPECT_EQ(unescapeNonUtf8(escapeNonUtf8(s)), s) << s;
  // Only what escapeNonUtf8 writes is read back: ASCII escapes stay text.
  EXPECT_EQ(unescapeNonUtf8("\\x41\\xe9"), "\\x41\xe9");
}
