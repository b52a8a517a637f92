//===- streaming_reduction_unit_test.cpp - Files not read by streaming ----===//
//
// analysis/streaming_reduction.h: a file the streaming load cannot read
// (text, a binary layout before v4, seqs a bitmap of seqs would not fit)
// gives no reduction and the reason, so that analyze reads it whole and
// its reader reports what is wrong. (That a file it reads gives the whole
// trace's reduction: test/model/streaming_reduction_test.cpp.)
//
#include "binary_builder.h"

#include "racepredict/analysis/streaming_reduction.h"
#include "racepredict/trace/binary_format.h"
#include "racepredict/trace/text_format.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace racepredict;
using racepredict::trace::test::BinaryBuilder;

namespace {

std::string tempFile(const std::string &suffix, const std::string &bytes) {
  std::string path =
      (std::filesystem::temp_directory_path() /
       ("rp-streaming-unit-" + std::to_string(getpid()) + suffix))
          .string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string why(const std::string &path) {
  std::string reason;
  EXPECT_FALSE(analysis::reduceWhileLoading(path, 16, &reason).has_value());
  std::filesystem::remove(path);
  return reason;
}

} // namespace

TEST(StreamingLoad, SeqsFarBeyondTheEventsAreReadWhole) {
  // Two writes of one thread at seqs 2^40 and 2^40 + 1 (v4: implicit).
  std::string rec =
      BinaryBuilder::rec(RP_WRITE | RP_SIZE_8 << RP_SIZE_SHIFT, {0x2000, 2});
  std::string path =
      tempFile(".rptrace", BinaryBuilder(4)
                               .events(1, uint64_t{1} << 40, 2, rec + rec)
                               .end()
                               .bytes());
  EXPECT_EQ(why(path), path + ": seqs far beyond the events' count");
}

TEST(StreamingLoad, TextAndOlderLayoutsAreReadWhole) {
  std::string text = tempFile(".rpt.txt", "t0 wr x 1\n");
  EXPECT_EQ(why(text), text + ": not a racepredict binary trace (no "
                              "'RPTRACE' magic at byte 0)");
  std::istringstream in("t0 wr x 1\nt0 rd x 1\n");
  auto t = trace::parseTextTrace(in, "t.rpt.txt");
  ASSERT_TRUE(static_cast<bool>(t));
  std::ostringstream v2;
  trace::writeBinaryTrace(*t, v2);
  std::string bin = tempFile(".rptrace", v2.str());
  EXPECT_EQ(why(bin), bin + ": binary trace format version 2 cannot be read "
                            "record by record (version 4 and later)");
}
