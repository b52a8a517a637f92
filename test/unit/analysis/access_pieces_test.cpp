//===- access_pieces_test.cpp - Accesses split at every access boundary ---===//
#include "racepredict/analysis/access_pieces.h"
#include "racepredict/solver/race_predictor.h"
#include "racepredict/trace/text_format.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>

using namespace racepredict;
using analysis::AccessPieces;
using analysis::EventId;
using analysis::Step;

namespace {

/// A text trace with the access sizes a binary trace records (text traces
/// have none): `sizes[i]` for event i, 0 = none.
trace::Trace sized(const std::string &text, const std::vector<uint8_t> &sizes) {
  std::istringstream in(text);
  auto t = trace::parseTextTrace(in, "pieces.rpt.txt");
  EXPECT_TRUE(static_cast<bool>(t)) << (t ? "" : t.error().message);
  if (!t)
    return {};
  EXPECT_EQ(sizes.size(), t->events.size());
  for (size_t i = 0; i < sizes.size() && i < t->events.size(); ++i)
    t->events[i].size = sizes[i];
  return std::move(*t);
}

std::string locOf(const AccessPieces &p, EventId e) {
  return p.trace.table(trace::NameSpace::Location).name(p.trace.events[e].obj);
}

std::set<std::pair<EventId, EventId>> races(const trace::Trace &t) {
  analysis::TraceIndex idx(t);
  solver::RaceOptions o;
  o.allPairs = true;
  std::set<std::pair<EventId, EventId>> out;
  for (const auto &f : solver::predictRaces(idx, o).races)
    out.insert({f.first, f.second});
  return out;
}

// libstdc++'s shared_ptr release (GCC 12): 4-byte atomic adds on the use
// count (0x1000) and the weak count (0x1004); the last owner reads both
// with one 8-byte atomic load and, seeing 1 and 1, destroys the object.
const char *kRelease = "t0 wr 0x1000 2\n"           // 0 use = 2
                       "t0 wr 0x1004 1\n"           // 1 weak = 1
                       "t0 wr 0x2000 7\n"           // 2 the object
                       "t0 fork t1\n"               // 3
                       "t0 fork t2\n"               // 4
                       "t1 rd 0x2000 7\n"           // 5 uses it
                       "t1 armw 0x1000 1 2\n"       // 6 drops its copy
                       "t2 ard 0x1000 4294967297\n" // 7 both counts: 1, 1
                       "t2 br\n"                    // 8
                       "t2 wr 0x2000 0\n";          // 9 destroys it
const std::vector<uint8_t> kReleaseSizes = {4, 4, 8, 0, 0, 8, 4, 8, 0, 8};

} // namespace

TEST(AccessPieces, ALoadOfBothCountsIsOneEventPerCount) {
  trace::Trace t = sized(kRelease, kReleaseSizes);
  auto p = analysis::splitOverlappingAccesses(t);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->groups, 1u);
  EXPECT_EQ(p->splitAccesses, 1u);
  ASSERT_EQ(p->trace.events.size(), 11u);
  EXPECT_EQ(p->original,
            (std::vector<EventId>{0, 1, 2, 3, 4, 5, 6, 7, 7, 8, 9}));
  EXPECT_EQ(p->first,
            (std::vector<EventId>{0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11}));
  EXPECT_EQ(p->piecesOf(7), 2u);
  // The load's pieces: the use count, then the weak count, 1 each.
  EXPECT_EQ(locOf(*p, 7), "0x1000");
  EXPECT_EQ(locOf(*p, 8), "0x1004");
  EXPECT_EQ(p->trace.events[7].value, 1);
  EXPECT_EQ(p->trace.events[8].value, 1);
  EXPECT_EQ(p->trace.events[7].size, 4);
  EXPECT_EQ(p->trace.events[7].kind, trace::EventKind::AtomicRead);
  // The counts are pieces already: as recorded.
  EXPECT_EQ(locOf(*p, 6), "0x1000");
  EXPECT_EQ(p->trace.rmwReadValue(p->trace.events[6]), 2);
  EXPECT_EQ(locOf(*p, 1), "0x1004");
}

TEST(AccessPieces, TheCountsOrderTheDestruction) {
  trace::Trace t = sized(kRelease, kReleaseSizes);
  auto p = analysis::splitOverlappingAccesses(t);
  ASSERT_TRUE(p.has_value());
  // t2 destroys only after seeing t1's decrement, which follows t1's use.
  EXPECT_TRUE(races(p->trace).empty());
}

TEST(AccessPieces, AWordCopyRacesWithAByteRead) {
  // A name copied in by one 8-byte store ("compress" little-endian) while
  // another thread reads the old one ("idle") byte by byte, as strlen does.
  trace::Trace t = sized("t0 wr 0x3000 1701602409\n"           // 0 "idle"
                         "t0 fork t1\n"                        // 1
                         "t0 rd 0x3000 105\n"                  // 2 'i'
                         "t0 br\n"                             // 3
                         "t0 rd 0x3001 100\n"                  // 4 'd'
                         "t1 wr 0x3000 8319104478870335331\n", // 5
                         {8, 0, 1, 0, 1, 8});
  auto p = analysis::splitOverlappingAccesses(t);
  ASSERT_TRUE(p.has_value());
  // Cut at 0x3000, 0x3001, 0x3002: the stores are three pieces.
  EXPECT_EQ(p->piecesOf(0), 3u);
  EXPECT_EQ(p->piecesOf(5), 3u);
  EXPECT_EQ(p->trace.events[p->first[5]].value, 'c');
  EXPECT_EQ(p->trace.events[p->first[5] + 1].value, 'o');
  EXPECT_EQ(p->trace.events[p->first[5] + 2].size, 6);
  EXPECT_EQ(locOf(*p, p->first[5] + 2), "0x3002");
  // Both byte reads race with the copy, each witness whole accesses.
  analysis::TraceIndex idx(p->trace);
  solver::RaceOptions o;
  o.allPairs = true;
  std::set<std::pair<EventId, EventId>> recorded;
  for (const auto &f : solver::predictRaces(idx, o).races) {
    auto w = analysis::recordedRaceWitness(*p, idx, f.schedule.steps());
    ASSERT_TRUE(w.has_value());
    EventId a = (*w)[w->size() - 2].event, b = w->back().event;
    recorded.insert({std::min(a, b), std::max(a, b)});
    EXPECT_EQ(
        analysis::checkRecordedRace(*p, idx, {w->begin(), w->end() - 2}, a, b),
        std::nullopt);
  }
  EXPECT_EQ(recorded, (std::set<std::pair<EventId, EventId>>{{2, 5}, {4, 5}}));
  // As recorded, 'i' is no value the first store wrote at 0x3000: the
  // branch after it never runs, and the second read is lost.
  EXPECT_EQ(races(t), (std::set<std::pair<EventId, EventId>>{{2, 5}}));
}

TEST(AccessPieces, PieceValuesAreTheRecordedBytesSignExtended) {
  trace::Trace t = sized("t0 fork t1\n"
                         "t0 wr 0x10 -1\n"         // 1: 8 bytes of 0xff
                         "t0 wr 0x18 4294967295\n" // 2: 0x00000000ffffffff
                         "t0 wr 0x20 128\n"        // 3: 2 bytes 0x0080
                         "t1 rd 0x10 -1\n"         // 4: 1 byte
                         "t1 rd 0x1c 0\n"          // 5: 4 bytes
                         "t1 rd 0x20 -128\n",      // 6: 1 byte 0x80
                         {0, 8, 8, 2, 1, 4, 1});
  auto p = analysis::splitOverlappingAccesses(t);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->piecesOf(1), 2u); // [0x10, 0x11), [0x11, 0x18)
  EXPECT_EQ(p->trace.events[p->first[1]].value, -1);
  EXPECT_EQ(p->trace.events[p->first[1] + 1].value, -1);
  EXPECT_EQ(p->piecesOf(2), 2u); // [0x18, 0x1c), [0x1c, 0x20)
  EXPECT_EQ(p->trace.events[p->first[2]].value, -1);
  EXPECT_EQ(p->trace.events[p->first[2] + 1].value, 0);
  EXPECT_EQ(p->piecesOf(3), 2u); // [0x20, 0x21), [0x21, 0x22)
  EXPECT_EQ(p->trace.events[p->first[3]].value, -128);
  EXPECT_EQ(p->trace.events[p->first[3] + 1].value, 0);
  // Every read sees what the writes' pieces wrote: no new names.
  for (EventId e = 0; e < p->trace.events.size(); ++e) {
    if (trace::isAccess(p->trace.events[e].kind)) {
      EXPECT_EQ(locOf(*p, e).find('~'), std::string::npos) << e;
    }
  }
}

TEST(AccessPieces, OnlyAPieceThatAHiddenWriteChangedGetsANewName) {
  // The kernel fills bytes 4..7 behind the program's back (no event).
  trace::Trace t = sized("t0 fork t1\n"
                         "t0 wr 0x40 0\n"            // 1: 8 bytes
                         "t1 rd 0x40 0\n"            // 2: 4 bytes, as written
                         "t1 rd 0x44 5\n"            // 3: 4 bytes, not
                         "t0 rd 0x40 21474836480\n", // 4: 8 bytes (5 << 32)
                         {0, 8, 4, 4, 8});
  auto p = analysis::splitOverlappingAccesses(t);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(locOf(*p, p->first[2]), "0x40");
  EXPECT_EQ(locOf(*p, p->first[3]), "0x44~1");
  EXPECT_EQ(locOf(*p, p->first[4]), "0x40");
  EXPECT_EQ(locOf(*p, p->first[4] + 1), "0x44~1");
}

TEST(AccessPieces, ADependenceOnASplitReadIsOnEachPiece) {
  trace::Trace t = sized("t0 fork t1\n"
                         "t0 wr 0x50 0\n"       // 1: 8 bytes
                         "t1 rd 0x54 0\n"       // 2: 4 bytes
                         "t1 rd 0x50 0\n"       // 3: 8 bytes
                         "t1 br <- 3\n"         // 4
                         "t1 wr 0x60 1 <- 3\n", // 5
                         {0, 8, 4, 8, 0, 8});
  auto p = analysis::splitOverlappingAccesses(t);
  ASSERT_TRUE(p.has_value());
  for (EventId e : {p->first[4], p->first[5]}) {
    auto [b, end] = p->trace.deps(p->trace.events[e]);
    EXPECT_EQ(std::vector<EventId>(b, end),
              (std::vector<EventId>{p->first[3], p->first[3] + 1}));
  }
}

TEST(AccessPieces, NothingToSplitLeavesTheTraceAsRecorded) {
  // One width per address.
  EXPECT_FALSE(analysis::splitOverlappingAccesses(sized(
      "t0 fork t1\nt0 wr 0x10 1\nt1 rd 0x10 1\nt1 rd 0x14 0\n", {0, 4, 4, 4})));
  // Mixed widths that one thread alone uses.
  EXPECT_FALSE(analysis::splitOverlappingAccesses(sized(
      "t0 fork t1\nt0 wr 0x10 1\nt0 rd 0x10 1\nt1 rd 0x20 0\n", {0, 8, 1, 4})));
  // Text traces: no sizes.
  EXPECT_FALSE(analysis::splitOverlappingAccesses(
      sized("t0 fork t1\nt0 wr x 1\nt1 rd x 1\n", {0, 0, 0})));
}

TEST(AccessPieces, AGlobalsOffsetsArePlacesInIt) {
  // `buf` and `buf+4` are one group; `other` is another object.
  trace::Trace t = sized("t0 fork t1\n"
                         "t0 wr buf 0\n"    // 1: 8 bytes
                         "t1 rd buf+4 0\n"  // 2: 4 bytes
                         "t1 rd other 0\n", // 3: 4 bytes
                         {0, 8, 4, 4});
  auto p = analysis::splitOverlappingAccesses(t);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->piecesOf(1), 2u);
  EXPECT_EQ(locOf(*p, p->first[1]), "buf");
  EXPECT_EQ(locOf(*p, p->first[1] + 1), "buf+4");
  EXPECT_EQ(locOf(*p, p->first[2]), "buf+4");
  EXPECT_EQ(p->piecesOf(3), 1u);
}

TEST(AccessPieces, ARecordedEventIsAllItsPiecesAtOneStep) {
  trace::Trace t = sized(kRelease, kReleaseSizes);
  auto p = analysis::splitOverlappingAccesses(t);
  ASSERT_TRUE(p.has_value());
  std::vector<Step> steps = {{0}, {1}, {2}, {3}, {4}};
  EXPECT_EQ(p->toPieces({{6}, {7}, {8}}),
            (std::vector<Step>{{6}, {7}, {8}, {9}}));
  analysis::TraceIndex idx(p->trace);
  // t1's rmw and t2's load are atomic: they never race, and the checker
  // says why rather than accepting the schedule.
  EXPECT_NE(analysis::checkRecordedRace(*p, idx, steps, 5, 9), std::nullopt);
}
