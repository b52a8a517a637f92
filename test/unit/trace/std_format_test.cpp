//===- std_format_test.cpp - RAPID STD import and format detection --------===//
#include "trace_test_util.h"

#include "racepredict/trace/std_format.h"
#include "racepredict/trace/trace_file.h"

#include <cstdio>
#include <fstream>

using namespace racepredict;
using namespace racepredict::trace;
using namespace racepredict::trace::test;

namespace {

Expected<Trace> parseStd(const std::string &text) {
  std::istringstream in(text);
  return parseStdTrace(in, "x.std");
}

std::string tempFile(const std::string &name, const std::string &content) {
  std::string path = ::testing::TempDir() + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

const char *kStd = "T0|fork(T1)|10\n"
                   "T0|acq(L0)|11\n"
                   "T0|w(V1.f[0])|12\n"
                   "T0|rel(L0)|13\n"
                   "\n"
                   "T1|req(L0)|20\n"
                   "T1|acq(L0)|20\n"
                   "T1|r(V1.f[0])|Foo.java:21\n"
                   "T1|rel(L0)|22\n"
                   "T1|begin(m)|bar\n"
                   "T1|w(V2)\n"
                   "T1|end(m)|bar\n"
                   "T0|join(T1)|30\r\n";

} // namespace

TEST(StdImport, MapsEveryOpAndPicksUnconstrainingValues) {
  auto t = parseStd(kStd);
  ASSERT_TRUE(static_cast<bool>(t)) << t.error().message;
  EXPECT_EQ(toText(*t), "init V1.f[0] 0\n"
                        "init V2 0\n"
                        "T0 fork T1 @std:10\n"
                        "T0 acq L0 @std:11\n"
                        "T0 wr V1.f[0] 0 @std:12\n"
                        "T0 rel L0 @std:13\n"
                        "T1 acq L0 @std:20\n"
                        "T1 rd V1.f[0] 0 @Foo.java:21\n"
                        "T1 rel L0 @std:22\n"
                        "T1 ev begin m @std:0:0@bar\n"
                        "T1 wr V2 0\n"
                        "T1 ev end m @std:0:0@bar\n"
                        "T0 join T1 @std:30\n");
  for (const Event &e : t->events)
    EXPECT_NE(e.kind, EventKind::Branch);
  // The import is an ordinary trace: it survives text and binary.
  EXPECT_EQ(toText(parseText(toText(*t))), toText(*t));
  auto back = fromBinary(toBinary(*t));
  ASSERT_TRUE(static_cast<bool>(back)) << back.error().message;
  EXPECT_EQ(toText(*back), toText(*t));
}

TEST(StdImport, ErrorsNameFileAndLine) {
  auto err = [](const std::string &text) {
    auto t = parseStd(text);
    return t ? std::string("accepted") : t.error().message;
  };
  EXPECT_EQ(err("T0|w(x)|1\nT0|sync(x)|2\n"),
            "x.std:2: unknown STD op 'sync' (expected r w acq rel fork join "
            "begin end)");
  EXPECT_EQ(err("T0 w x\n"),
            "x.std:1: expected `<thread>|<op>(<operand>)|<loc>`");
  EXPECT_EQ(err("T0|w(x|1\n"),
            "x.std:1: expected `<op>(<operand>)`, got 'w(x'");
  EXPECT_EQ(err("T0|fork(T0)|1\n"), "x.std:1: a thread cannot fork itself");
  EXPECT_EQ(err("T0|w()|1\n"),
            "x.std:1: bad operand '' (empty, or blanks or '#')");
}

TEST(TraceFile, DetectsEachFormatByContent) {
  Trace text = parseText(kAllKinds);
  std::string textPath = tempFile("detect.rpt.txt", toText(text));
  std::string binPath = tempFile("detect.bin", toBinary(text));
  std::string stdPath = tempFile("detect.txt", kStd);
  ReadInfo info;
  auto a = readTraceFile(textPath, {}, &info);
  ASSERT_TRUE(static_cast<bool>(a)) << a.error().message;
  EXPECT_EQ(info.format, TraceFormat::Text);
  auto b = readTraceFile(binPath, {}, &info);
  ASSERT_TRUE(static_cast<bool>(b)) << b.error().message;
  EXPECT_EQ(info.format, TraceFormat::Binary);
  EXPECT_EQ(toText(*a), toText(*b));
  auto c = readTraceFile(stdPath, {}, &info);
  ASSERT_TRUE(static_cast<bool>(c)) << c.error().message;
  EXPECT_EQ(info.format, TraceFormat::Std);
  EXPECT_EQ(c->events.size(), 11u); // req and the blank line are dropped
  // A forced format wins over detection.
  ReadOptions asText;
  asText.format = TraceFormat::Text;
  auto d = readTraceFile(stdPath, asText, &info);
  ASSERT_FALSE(static_cast<bool>(d));
  EXPECT_EQ(d.error().message.rfind(stdPath + ":1: ", 0), 0u);
}

TEST(TraceFile, MissingFile) {
  auto t = readTraceFile("/nonexistent/dir/t.rptrace");
  ASSERT_FALSE(static_cast<bool>(t));
  EXPECT_EQ(t.error().message,
            "cannot open trace '/nonexistent/dir/t.rptrace': "
            "No such file or directory");
}
