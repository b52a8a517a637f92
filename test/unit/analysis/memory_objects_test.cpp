//===- memory_objects_test.cpp - Allocations, frees and their locations ---===//
#include "racepredict/analysis/candidates.h"
#include "racepredict/analysis/memory_objects.h"
#include "racepredict/trace/text_format.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace racepredict;
using analysis::EventId;

namespace {

trace::Trace parse(const std::string &text) {
  std::istringstream in(text);
  auto t = trace::parseTextTrace(in, "objects.rpt.txt");
  EXPECT_TRUE(static_cast<bool>(t)) << (t ? "" : t.error().message);
  return t ? std::move(*t) : trace::Trace{};
}

std::vector<std::string> names(const trace::Trace &t,
                               analysis::Span<uint32_t> locs) {
  std::vector<std::string> out;
  for (uint32_t l : locs)
    out.push_back(t.table(trace::NameSpace::Location).name(l));
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace

TEST(MemoryObjects, LocationAddressesIncludeRenamedOnes) {
  EXPECT_EQ(trace::locationAddress("0x1a0"), 0x1a0u);
  EXPECT_EQ(trace::locationAddress("0x1a0~2"), 0x1a0u);
  EXPECT_FALSE(trace::locationAddress("counter"));
  EXPECT_FALSE(trace::locationAddress("table+8"));
  EXPECT_FALSE(trace::locationAddress("0x"));
  EXPECT_FALSE(trace::locationAddress("0x12g"));
}

TEST(MemoryObjects, AnAllocationCoversItsWholeBlock) {
  // A block at 0x100 reused after free: its fields at 0x108 and 0x10c are
  // new locations too, not only the block's first word.
  trace::Trace t = parse("t1 alloc 0x100 16\n" // 0
                         "t1 wr 0x108 1\n"     // 1
                         "t1 wr 0x10c 1\n"     // 2
                         "t1 free 0x100 16\n"  // 3
                         "t2 alloc 0x100 16\n" // 4
                         "t2 wr 0x108 2\n"     // 5
                         "t2 rd 0x10c 1\n"     // 6
                         "t2 wr 0x120 3\n");   // 7: outside the block
  analysis::TraceIndex idx(t);
  EXPECT_NE(idx.allocGeneration(1), idx.allocGeneration(5));
  EXPECT_NE(idx.allocGeneration(2), idx.allocGeneration(6));
  const analysis::MemoryObjects &m = idx.objects();
  EXPECT_EQ(names(t, m.freedBy(3)),
            (std::vector<std::string>{"0x108", "0x10c"}));
  EXPECT_TRUE(m.ends(3, 1));
  EXPECT_FALSE(m.ends(3, 5)); // the next object at that address
  EXPECT_FALSE(m.ends(3, 7));
  analysis::MustHappenBefore mhb(idx);
  analysis::CandidateStats st;
  EXPECT_TRUE(analysis::findCandidates(idx, mhb, false, &st).empty());
}

TEST(MemoryObjects, AFreeRacesWithAccessesOfItsObjectInOtherThreads) {
  // t2 frees the node t1 is still updating (use-after-free), before and
  // after the free in the observed order; t1's own free does not race with
  // its own accesses, and a named location is covered by its own allocs.
  trace::Trace t = parse("t0 alloc 0x200 8\n" // 0
                         "t0 fork t1\n"       // 1
                         "t0 fork t2\n"       // 2
                         "t1 rd 0x200 0\n"    // 3
                         "t2 free 0x200 8\n"  // 4
                         "t1 wr 0x200 1\n"    // 5
                         "t1 alloc h 4\n"     // 6
                         "t1 wr h 7\n"        // 7
                         "t1 free h 4\n");    // 8
  analysis::TraceIndex idx(t);
  EXPECT_TRUE(analysis::conflicts(idx, 3, 4));
  EXPECT_TRUE(analysis::conflicts(idx, 4, 5));
  EXPECT_FALSE(analysis::conflicts(idx, 7, 8));
  EXPECT_EQ(names(t, idx.objects().freedBy(8)),
            (std::vector<std::string>{"h"}));
  analysis::MustHappenBefore mhb(idx);
  analysis::CandidateStats st;
  auto c = analysis::findCandidates(idx, mhb, true, &st);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(std::make_pair(c[0].first, c[0].second), std::make_pair(3u, 4u));
  EXPECT_EQ(std::make_pair(c[1].first, c[1].second), std::make_pair(4u, 5u));
}

TEST(MemoryObjects, UnmappingPartOfAMappingEndsOnlyThatPart) {
  trace::Trace t = parse("t1 alloc 0x1000 0x2000\n" // 0: a two-page mapping
                         "t1 wr 0x1800 1\n"         // 1
                         "t1 wr 0x2800 1\n"         // 2
                         "t1 free 0x1000 4096\n"    // 3: munmap the first page
                         "t1 alloc 0x1000 4096\n"   // 4: map a page there again
                         "t2 wr 0x1800 2\n"         // 5: the new page
                         "t2 wr 0x2800 2\n");       // 6: still the old mapping
  analysis::TraceIndex idx(t);
  EXPECT_EQ(names(t, idx.objects().freedBy(3)),
            (std::vector<std::string>{"0x1800"}));
  EXPECT_FALSE(analysis::conflicts(idx, 1, 5));
  EXPECT_TRUE(analysis::conflicts(idx, 2, 6));
}
