//===- test/unit/support/file_io_test.cpp - Opening and checked writes ----===//
#include "racepredict/support/file_io.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <unistd.h>

using namespace racepredict;

namespace {

std::string scratch(const std::string &name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("racepredict-file-io-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

} // namespace

TEST(OpenInput, SaysWhyNot) {
  auto missing = openInput("/nonexistent/t.rptrace", "trace");
  ASSERT_FALSE(static_cast<bool>(missing));
  EXPECT_EQ(missing.error().message, "cannot open trace "
                                     "'/nonexistent/t.rptrace': No such file "
                                     "or directory");
  auto dir = openInput("/", "witness");
  ASSERT_FALSE(static_cast<bool>(dir));
  EXPECT_EQ(dir.error().message, "'/' is a directory, not a witness");
}

TEST(OutputFile, WritesTextThroughTheUtf8Filter) {
  std::string path = scratch("report.txt");
  auto f = OutputFile::open(path, "report");
  ASSERT_TRUE(static_cast<bool>(f)) << f.error().message;
  f->stream() << "caf\xe9.c\n";
  ASSERT_TRUE(static_cast<bool>(f->finish()));
  auto back = openInput(path, "report");
  ASSERT_TRUE(static_cast<bool>(back));
  std::string line;
  std::getline(*back, line);
  EXPECT_EQ(line, "caf\\xE9.c");
}

TEST(OutputFile, BinaryKeepsTheBytes) {
  std::string path = scratch("trace.bin");
  ASSERT_TRUE(static_cast<bool>(
      writeWholeFile(path, "trace", std::string("\xe9\0\xff", 3))));
  auto back = openInput(path, "trace");
  ASSERT_TRUE(static_cast<bool>(back));
  std::string all((std::istreambuf_iterator<char>(*back)),
                  std::istreambuf_iterator<char>());
  EXPECT_EQ(all, std::string("\xe9\0\xff", 3));
}

TEST(OutputFile, AFullDiskIsAnErrorWithItsReason) {
  if (access("/dev/full", W_OK) != 0)
    GTEST_SKIP() << "no /dev/full";
  for (auto kind : {OutputFile::Kind::Text, OutputFile::Kind::Binary}) {
    auto f = OutputFile::open("/dev/full", "report", kind);
    ASSERT_TRUE(static_cast<bool>(f));
    // More than any buffer: the failure happens while writing, not only
    // at the final flush.
    f->stream() << std::string(1 << 20, 'x');
    auto done = f->finish();
    ASSERT_FALSE(static_cast<bool>(done));
    EXPECT_EQ(done.error().message,
              "cannot write report '/dev/full': No space left on device");
  }
  auto dir = OutputFile::open("/", "report");
  ASSERT_FALSE(static_cast<bool>(dir));
  EXPECT_EQ(dir.error().message, "cannot write report '/': it is a directory");
}
