//===- record_filter_test.cpp - A binary load that keeps some records -----===//
//
// trace/record_filter.h: the binary reader shows every record to the
// filter, stores only what it keeps, drops references to the rest as a
// cut file's, replaces dependence lists and location names where the
// filter gives them, and refuses layouts it cannot filter.
//
#include "trace_test_util.h"

#include "racepredict/trace/binary_format.h"
#include "racepredict/trace/text_format.h"
#include "racepredict/trace/trace_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <unistd.h>

using namespace racepredict;
using namespace racepredict::trace;

namespace {

/// Writes `text` as a binary trace of `version` and returns its path.
std::string binaryFile(const std::string &text, unsigned version) {
  std::istringstream in(text);
  auto t = parseTextTrace(in, "t.rpt.txt");
  EXPECT_TRUE(static_cast<bool>(t)) << (t ? "" : t.error().message);
  std::string path = (std::filesystem::temp_directory_path() /
                      ("rp-filter-" + std::to_string(getpid()) + "-v" +
                       std::to_string(version) + ".rptrace"))
                         .string();
  std::ofstream out(path, std::ios::binary);
  writeBinaryTrace(*t, out, version);
  return path;
}

std::string text(const Trace &t) {
  std::ostringstream out;
  writeTextTrace(t, out);
  return out.str();
}

/// Keeps the seqs in `keep`; gives `lists` and `names` by seq.
struct Filter : RecordFilter {
  std::set<uint64_t> keepSeqs, seen;
  std::map<uint64_t, std::vector<uint64_t>> lists;
  std::set<uint64_t> plain;
  std::map<uint64_t, uint32_t> names;
  bool keep(const RecordView &r) override {
    seen.insert(r.seq);
    return keepSeqs.count(r.seq) != 0;
  }
  bool dependences(uint64_t seq, std::vector<uint64_t> &out,
                   bool *isPlain) override {
    *isPlain = plain.count(seq) != 0;
    auto it = lists.find(seq);
    if (!*isPlain && it == lists.end())
      return false;
    if (it != lists.end())
      out = it->second;
    return true;
  }
  uint32_t nameNumber(uint64_t seq) override {
    auto it = names.find(seq);
    return it == names.end() ? 0 : it->second;
  }
};

const char *kTrace = "t0 fork t1\n"       // 0
                     "t1 rd x 0\n"        // 1
                     "t1 rd y 0\n"        // 2
                     "t1 br <- 1 2\n"     // 3
                     "t0 wr x 1\n"        // 4
                     "t1 wr y 2 <- 1 2\n" // 5
                     "t0 signal c\n"      // 6
                     "t1 rd x 1\n";       // 7

} // namespace

TEST(RecordFilter, KeepsWhatItKeepsAndDropsReferencesToTheRest) {
  std::string path = binaryFile(kTrace, 4);
  Filter f;
  f.keepSeqs = {0, 2, 3, 5, 7}; // the branch's read 1 is left out
  ReadOptions ro;
  ro.filter = &f;
  auto t = readTraceFile(path, ro);
  ASSERT_TRUE(static_cast<bool>(t)) << t.error().message;
  EXPECT_EQ(f.seen, (std::set<uint64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  // A list naming a record left out falls back to the plain rule.
  EXPECT_EQ(text(*t), "t0 fork t1\n"
                      "t1 rd y 0\n"
                      "t1 br\n"
                      "t1 wr y 2\n"
                      "t1 rd x 1\n");
  std::filesystem::remove(path);
}

TEST(RecordFilter, ListsAndNamesItGivesReplaceTheFiles) {
  std::string path = binaryFile(kTrace, 4);
  Filter f;
  f.keepSeqs = {0, 1, 2, 3, 5, 7};
  f.givesNames = true;
  f.lists[3] = {2}; // the branch now lists read 2 alone
  f.plain = {5};    // the write: no list, the plain rule
  f.names[7] = 2;   // the last read goes by x~2
  ReadOptions ro;
  ro.filter = &f;
  auto t = readTraceFile(path, ro);
  ASSERT_TRUE(static_cast<bool>(t)) << t.error().message;
  EXPECT_EQ(text(*t), "t0 fork t1\n"
                      "t1 rd x 0\n"
                      "t1 rd y 0\n"
                      "t1 br <- 2\n"
                      "t1 wr y 2\n"
                      "t1 rd x~2 1\n");
  std::filesystem::remove(path);
}

TEST(RecordFilter, KeepingNothingIsAnEmptyTraceNotAnError) {
  std::string path = binaryFile(kTrace, 4);
  Filter f;
  ReadOptions ro;
  ro.filter = &f;
  auto t = readTraceFile(path, ro);
  ASSERT_TRUE(static_cast<bool>(t)) << t.error().message;
  EXPECT_TRUE(t->events.empty());
  EXPECT_EQ(f.seen.size(), 8u);
  std::filesystem::remove(path);
}

TEST(RecordFilter, OlderLayoutsAndTextAreRefusedByName) {
  std::string path = binaryFile(kTrace, 2);
  Filter f;
  ReadOptions ro;
  ro.filter = &f;
  auto t = readTraceFile(path, ro);
  ASSERT_FALSE(static_cast<bool>(t));
  EXPECT_EQ(t.error().message,
            path + ": binary trace format version 2 cannot be read record "
                   "by record (version 4 and later)");
  std::filesystem::remove(path);
  std::string txt = path + ".rpt.txt";
  std::ofstream(txt) << kTrace;
  t = readTraceFile(txt, ro);
  ASSERT_FALSE(static_cast<bool>(t));
  EXPECT_EQ(t.error().message,
            txt + ": only a binary trace can be read record by record");
  std::filesystem::remove(txt);
}

TEST(BinaryTraceVersion, ReadFromTheHeaderLeavingTheStreamWhereItWas) {
  // What analyze looks at to choose the streaming load (v4 and later).
  for (unsigned version : {2u, 4u}) {
    std::istringstream text(kTrace);
    auto t = parseTextTrace(text, "t.rpt.txt");
    ASSERT_TRUE(static_cast<bool>(t));
    std::ostringstream out;
    writeBinaryTrace(*t, out, version);
    std::istringstream in(out.str());
    EXPECT_EQ(binaryTraceVersion(in), std::optional<unsigned>(version));
    EXPECT_EQ(in.tellg(), std::streampos(0));
  }
  std::istringstream text(kTrace), shortHeader(std::string("RPTRACE\0", 8));
  EXPECT_EQ(binaryTraceVersion(text), std::nullopt);
  EXPECT_EQ(binaryTraceVersion(shortHeader), std::nullopt);
}
