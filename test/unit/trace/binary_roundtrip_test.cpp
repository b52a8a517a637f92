//===- binary_roundtrip_test.cpp - Text <-> binary is lossless ------------===//
#include "binary_builder.h"
#include "trace_test_util.h"

#include "racepredict/trace/trace_file.h"

#include <filesystem>
#include <random>

using namespace racepredict::trace;
using namespace racepredict::trace::test;

namespace {

/// text -> Trace -> binary -> Trace -> text is byte-identical, and writing
/// the re-read trace gives the same binary file.
void expectRoundTrip(const Trace &t, const std::string &what) {
  std::string text = toText(t);
  std::string bin = toBinary(t);
  ReadInfo info;
  auto back = fromBinary(bin, {}, &info);
  ASSERT_TRUE(static_cast<bool>(back)) << what << ": " << back.error().message;
  EXPECT_FALSE(info.truncated);
  EXPECT_EQ(info.format, TraceFormat::Binary);
  EXPECT_EQ(toText(*back), text) << what;
  EXPECT_EQ(toBinary(*back), bin) << what;
  expectConsistent(*back);
}

bool isTraceFile(const std::filesystem::path &p) {
  std::string n = p.filename().string();
  auto ends = [&](const char *s) {
    std::string suf(s);
    return n.size() >= suf.size() &&
           n.compare(n.size() - suf.size(), suf.size(), suf) == 0;
  };
  return ends(".rpt.txt") || ends(".trace") || ends(".rptrace") ||
         ends(".rpbin") || ends(".std");
}

/// An access-heavy interleaving like a recorded one: random thread switches,
/// ~90% reads and writes of a few hundred locations with small values, each
/// with one of a few hundred source locations, some locking.
Trace accessHeavyTrace(size_t n, unsigned seed) {
  Trace t;
  std::mt19937 rng(seed);
  const int kThreads = 4, kLocs = 300, kSrcs = 400;
  for (int i = 0; i < kThreads; ++i)
    t.table(NameSpace::Thread).intern("t" + std::to_string(i));
  for (int i = 0; i < kLocs; ++i)
    t.table(NameSpace::Location).intern("v" + std::to_string(i));
  t.table(NameSpace::Lock).intern("m");
  for (int i = 0; i < kSrcs; ++i)
    t.addSource({"prog.c", static_cast<uint32_t>(10 + i), 5, "f"});
  int holder = -1;
  std::vector<int64_t> mem(kLocs, 0);
  while (t.events.size() < n) {
    Event e{};
    e.thread = rng() % kThreads;
    e.extra = kNone;
    e.src = 1 + rng() % kSrcs;
    unsigned r = rng() % 100;
    if (r < 5 && holder < 0) {
      e.kind = EventKind::Acquire;
      holder = static_cast<int>(e.thread);
    } else if (r < 10 && holder == static_cast<int>(e.thread)) {
      e.kind = EventKind::Release;
      holder = -1;
    } else {
      e.obj = rng() % kLocs;
      e.size = 4;
      if (r < 60) {
        e.kind = EventKind::Read;
        e.value = mem[e.obj];
      } else {
        e.kind = EventKind::Write;
        e.value = mem[e.obj] = static_cast<int64_t>(rng() % 1000);
      }
    }
    t.events.push_back(e);
  }
  return t;
}

} // namespace

TEST(BinaryRoundTrip, EveryEventKindAndField) {
  Trace t = parseText(kAllKinds);
  ASSERT_EQ(t.events.size(), 40u);
  expectRoundTrip(t, "all kinds");
}

// A timed call that returned after its deadline (`late`, format.h v6
// RP_PAST_DEADLINE) keeps the mark through text and binary; a lock named
// `late` is still a lock.
TEST(BinaryRoundTrip, TimedCallsPastTheirDeadline) {
  Trace t = parseText("t1 acq m late\nt1 rel m\nt2 racq rw late\n"
                      "t2 tryfail m late\nt2 acq late\nt2 seminit s 1\n"
                      "t2 semwait s late\nt1 signal c\nt1 acq m\n"
                      "t1 wait c m <- 7 late\nt1 wait c m <- none late\n"
                      "t1 wait c m\n");
  ASSERT_EQ(t.events.size(), 12u);
  std::vector<EventId> late;
  for (EventId i = 0; i < t.events.size(); ++i)
    if (t.events[i].flags & kEventPastDeadline)
      late.push_back(i);
  EXPECT_EQ(late, (std::vector<EventId>{0, 2, 3, 6, 9, 10}));
  EXPECT_EQ(t.table(NameSpace::Lock).name(t.events[4].obj), "late");
  EXPECT_EQ(t.events[9].extra, 7u);
  EXPECT_EQ(t.events[10].extra, kNone);
  EXPECT_NE(toText(t).find("t1 wait c m <- 7 late\n"), std::string::npos);
  expectRoundTrip(t, "late");
  // Only the calls that can time out take the mark.
  std::istringstream bad("t1 rel m late\n");
  EXPECT_FALSE(static_cast<bool>(parseTextTrace(bad, "x")));
}

// A try-acquire that succeeded (`try`, format.h v7 RP_TRY_ACQUIRE, bit 6
// of the record code) keeps the mark through text and binary, also with
// `late` (a timed lock's retry is not marked, but the format allows both);
// a lock named `try` is still a lock.
TEST(BinaryRoundTrip, TryAcquiresKeepTheirMark) {
  Trace t = parseText("t1 acq m try\nt1 rel m\nt2 racq rw try\n"
                      "t2 acq try\nt2 rel try\nt2 seminit s 1\n"
                      "t2 semwait s try\nt1 acq m try late\nt1 acq try try\n"
                      "t1 acq n\n");
  ASSERT_EQ(t.events.size(), 10u);
  std::vector<EventId> tried, late;
  for (EventId i = 0; i < t.events.size(); ++i) {
    if (isTryAcquire(t.events[i]))
      tried.push_back(i);
    if (t.events[i].flags & kEventPastDeadline)
      late.push_back(i);
  }
  EXPECT_EQ(tried, (std::vector<EventId>{0, 2, 6, 7, 8}));
  EXPECT_EQ(late, (std::vector<EventId>{7}));
  EXPECT_EQ(t.table(NameSpace::Lock).name(t.events[3].obj), "try");
  EXPECT_EQ(t.table(NameSpace::Lock).name(t.events[8].obj), "try");
  std::string text = toText(t);
  EXPECT_NE(text.find("t1 acq m try late\n"), std::string::npos);
  EXPECT_NE(text.find("t2 acq try\n"), std::string::npos);
  expectRoundTrip(t, "try");
  // Bit 6 of the record code carries it.
  std::string bin = toBinary(t);
  auto back = fromBinary(bin);
  ASSERT_TRUE(static_cast<bool>(back));
  EXPECT_TRUE(isTryAcquire(back->events[0]));
  EXPECT_FALSE(isTryAcquire(back->events[9]));
  // Only acquisitions and semaphore waits take it.
  for (const char *bad : {"t1 tryfail m try\n", "t1 acq m\nt1 rel m try\n"}) {
    std::istringstream in(bad);
    EXPECT_FALSE(static_cast<bool>(parseTextTrace(in, "x"))) << bad;
  }
}

TEST(BinaryRoundTrip, EveryCorpusTrace) {
  size_t n = 0;
  for (const char *dir : {RACEPREDICT_TEST_INPUTS, RACEPREDICT_EXAMPLES}) {
    for (const auto &ent : std::filesystem::recursive_directory_iterator(dir)) {
      if (!ent.is_regular_file() || !isTraceFile(ent.path()))
        continue;
      auto t = readTraceFile(ent.path().string());
      if (!t)
        continue; // the deliberately broken inputs under test/inputs/bad
      SCOPED_TRACE(ent.path().string());
      expectRoundTrip(*t, ent.path().string());
      ++n;
    }
  }
  EXPECT_GE(n, 1u);
}

TEST(BinaryRoundTrip, BinaryKeepsAccessSizes) {
  Trace t = parseText("t1 wr x 1\nt1 rd x 1\nt1 armw x 2 1\n");
  t.events[0].size = 8;
  t.events[1].size = 1;
  t.events[2].size = 255;
  auto back = fromBinary(toBinary(t));
  ASSERT_TRUE(static_cast<bool>(back)) << back.error().message;
  EXPECT_EQ(back->events[0].size, 8);
  EXPECT_EQ(back->events[1].size, 1);
  EXPECT_EQ(back->events[2].size, 255);
}

TEST(BinaryRoundTrip, ManyWindowsOfInterleavedThreads) {
  Trace t = accessHeavyTrace(20000, 7);
  expectRoundTrip(t, "interleaved");
}

TEST(BinaryRoundTrip, AccessHeavyTraceFitsTheByteBudget) {
  const size_t n = 200000;
  Trace t = accessHeavyTrace(n, 11);
  std::string bin = toBinary(t);
  double perEvent = static_cast<double>(bin.size()) / n;
  RecordProperty("bytes_per_event", std::to_string(perEvent));
  std::cout << "binary trace: " << perEvent << " bytes/event\n";
  EXPECT_LE(perEvent, 16.0); // DESIGN.md budget before compression
}

TEST(BinaryReader, MergesInterleavedBlocksBySeq) {
  // Thread 2's buffer is flushed before thread 1's, and its wait names a
  // notify (seq 2) that only thread 1's later block holds. Keys are raw
  // addresses; names come after the events and leave some keys unnamed.
  using B = BinaryBuilder;
  std::string recs2 = B::rec(RP_BEGIN, {0}) +              // seq 1
                      B::rec(RP_READ, {1, 0x1000, 4, 6}) + // seq 3, value 3
                      B::rec(RP_BRANCH, {0, 2, 1}) +       // seq 4 <- 3
                      B::rec(RP_WAIT, {1, 0xc0, 0x50, 3}); // seq 6 <- seq 2
  std::string recs1 = B::rec(RP_FORK, {0, 7}) +            // seq 0: fork t7
                      B::rec(RP_SIGNAL, {1, 0xc0}) +       // seq 2
                      B::rec(RP_WRITE, {2, 0x1000, 4, 2}); // seq 5
  std::string bytes =
      B().events(7, 1, 4, recs2)
          .events(1, 0, 3, recs1)
          .block(RP_BLOCK_NAMES, B::name(RP_NS_THREAD, 1, "main") +
                                     B::name(RP_NS_LOCATION, 0x1000, "x"))
          .end()
          .bytes();
  auto t = fromBinary(bytes);
  ASSERT_TRUE(static_cast<bool>(t)) << t.error().message;
  EXPECT_EQ(toText(*t), "main fork t7\n"
                        "t7 begin\n"
                        "main signal 0xc0\n"
                        "t7 rd x 3\n"
                        "t7 br <- 3\n"
                        "main wr x 1\n"
                        "t7 wait 0xc0 0x50 <- 2\n");
  expectConsistent(*t);
}

TEST(BinaryReader, KeysWithTheSameNameAreOneObject) {
  using B = BinaryBuilder;
  std::string recs =
      B::rec(RP_WRITE, {0, 1, 0, 2}) + B::rec(RP_READ, {0, 2, 0, 2});
  std::string bytes =
      B().block(RP_BLOCK_NAMES, B::name(RP_NS_LOCATION, 1, "x") +
                                    B::name(RP_NS_LOCATION, 2, "x"))
          .events(1, 0, 2, recs)
          .end()
          .bytes();
  auto t = fromBinary(bytes);
  ASSERT_TRUE(static_cast<bool>(t)) << t.error().message;
  EXPECT_EQ(t->events[0].obj, t->events[1].obj);
  EXPECT_EQ(t->table(NameSpace::Location).size(), 1u);
}

TEST(BinaryReader, SourceWithoutFileIsKept) {
  // The runtime writes an empty file for code without debug information.
  using B = BinaryBuilder;
  std::string src = B::varints({1, 0, 0, 0, 2}) + "fn";
  std::string bytes =
      B().block(RP_BLOCK_SOURCES, src)
          .events(1, 0, 1, B::rec(RP_BEGIN | RP_HAS_SRC, {0, 1}))
          .end()
          .bytes();
  auto t = fromBinary(bytes);
  ASSERT_TRUE(static_cast<bool>(t)) << t.error().message;
  ASSERT_EQ(t->events[0].src, 1u);
  EXPECT_EQ(t->sources[1].file, "");
  EXPECT_EQ(t->sources[1].function, "fn");
  auto again = fromBinary(toBinary(*t));
  ASSERT_TRUE(static_cast<bool>(again)) << again.error().message;
  EXPECT_EQ(again->sources[1].function, "fn");
}

TEST(BinaryReader, SparseSeqsAreOrderedToo) {
  // Seqs far apart (gaps are legal) take the sorting path, not the dense one.
  using B = BinaryBuilder;
  const uint64_t big = uint64_t{1} << 40;
  std::string t2 = B::rec(RP_BEGIN, {0}) + B::rec(RP_END, {0}); // big, big+1
  std::string t1 = B::rec(RP_FORK, {0, 2}) +                    // 0
                   B::rec(RP_JOIN, {big + 1, 2}) +              // big+2
                   B::rec(RP_END, {big});                       // 2 big+3
  std::string bytes =
      B().events(2, big, 2, t2).events(1, 0, 3, t1).end().bytes();
  auto t = fromBinary(bytes);
  ASSERT_TRUE(static_cast<bool>(t)) << t.error().message;
  EXPECT_EQ(toText(*t), "t1 fork t2\nt2 begin\nt2 end\nt1 join t2\nt1 end\n");
}

TEST(BinaryRoundTrip, CallStacksSurviveBothFormats) {
  const char *text =
      "t1 begin @a.c:1:0@main\n"
      "t1 fork t2 @a.c:3:0@main\n"
      "t2 begin @a.c:10:0@worker\n"
      "t2 wr x 1 @a.c:20:5@helper @a.c:11:3@worker\n"
      "t2 rd x 1 @a.c:30:0@leaf @a.c:21:0@helper @a.c:11:3@worker\n"
      "t2 wr y 2 @- @a.c:12:0@worker\n"
      "t2 end @a.c:13:0@worker\n"
      "t1 join t2 @a.c:4:0@main\n";
  Trace t = parseText(text);
  EXPECT_EQ(toText(t), text);
  ASSERT_EQ(t.eventStacks.size(), t.events.size());
  std::vector<std::string> frames;
  for (SrcId s : t.frames(4))
    frames.push_back(t.sources[s].function + " " + t.sources[s].str());
  EXPECT_EQ(frames, (std::vector<std::string>{"leaf a.c:30", "helper a.c:21",
                                              "worker a.c:11:3"}));
  expectRoundTrip(t, "stacks");
}

TEST(BinaryRoundTrip, InlinedFramesExpandInto) {
  Trace t = parseText("t1 wr x 1\nt1 rd x 1\n");
  SrcId outer = t.addSource({"a.c", 40, 2, "main"});
  SourceLoc inner{"a.h", 7, 3, "get"};
  inner.inlinedAt = outer;
  t.events[0].src = t.addSource(inner);
  auto back = fromBinary(toBinary(t));
  ASSERT_TRUE(static_cast<bool>(back)) << back.error().message;
  std::vector<SrcId> frames = back->frames(0);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(back->sources[frames[0]].str(), "a.h:7:3");
  EXPECT_EQ(back->sources[frames[1]].str(), "a.c:40:2");
  // The text form lists the inlined frames as call sites.
  EXPECT_EQ(toText(*back), "t1 wr x 1 @a.h:7:3@get @a.c:40:2@main\n"
                           "t1 rd x 1\n");
}

TEST(BinaryReader, Version2LocationDeltasSizeCodesAndStacks) {
  using B = BinaryBuilder;
  auto zz = [](int64_t v) { return codec::zigzag(v); };
  std::string src = B::varints({1}) +
                    std::string("\x03"
                                "a.c",
                                4) +
                    B::varints({5, 0}) +
                    std::string("\x01"
                                "f",
                                2) +
                    B::varints({0});
  // Thread 1: stack record pushing call site 1, then a 4-byte write of
  // 0x1000, an 8-byte read of 0x1008 (delta +8) and a 2-byte write of
  // 0x0ff0 (delta -0x18, explicit size).
  std::string recs =
      std::string(1, static_cast<char>(RP_STACK)) + B::varints({0, 1, 1}) +
      B::rec(RP_WRITE | RP_SIZE_4 << RP_SIZE_SHIFT, {0, zz(0x1000), zz(7)}) +
      B::rec(RP_READ | RP_SIZE_8 << RP_SIZE_SHIFT, {0, zz(8), zz(7)}) +
      B::rec(RP_WRITE, {0, zz(-0x18), 2, zz(-1)});
  std::string bytes =
      B(2).block(RP_BLOCK_SOURCES, src).events(1, 0, 4, recs).end().bytes();
  auto t = fromBinary(bytes);
  ASSERT_TRUE(static_cast<bool>(t)) << t.error().message;
  EXPECT_EQ(toText(*t), "t1 wr 0x1000 7 @- @a.c:5:0@f\n"
                        "t1 rd 0x1008 7 @- @a.c:5:0@f\n"
                        "t1 wr 0xff0 -1 @- @a.c:5:0@f\n");
  EXPECT_EQ(t->events[0].size, 4);
  EXPECT_EQ(t->events[1].size, 8);
  EXPECT_EQ(t->events[2].size, 2);
}

TEST(BinaryErrors, StackRecordPoppingTooMuchNamesItsOffset) {
  using B = BinaryBuilder;
  // header 16 + block header 8 + thread, first seq, count (3 bytes) = 27.
  std::string recs = std::string(1, static_cast<char>(RP_STACK)) +
                     B::varints({1, 0}) + B::rec(RP_BEGIN, {0});
  auto t = fromBinary(B(2).events(1, 0, 2, recs).end().bytes());
  ASSERT_FALSE(static_cast<bool>(t));
  EXPECT_EQ(t.error().message,
            "test.rptrace: byte 27 (after 0 events): a stack record pops 1 "
            "frames from a shorter call stack");
}

TEST(BinaryReader, GlobalsNameAddressesInsideThem) {
  using B = BinaryBuilder;
  auto zz = [](int64_t v) { return codec::zigzag(v); };
  auto global = [](uint64_t addr, uint64_t size, const std::string &n) {
    return B::varints({addr, size, n.size()}) + n;
  };
  // Two file-static `x` (kept apart by their address), an array `a`.
  std::string globals =
      global(0x1000, 4, "x") + global(0x2000, 4, "x") + global(0x3000, 16, "a");
  std::string recs =
      B::rec(RP_WRITE | RP_SIZE_4 << RP_SIZE_SHIFT, {0, zz(0x1000), zz(1)}) +
      B::rec(RP_WRITE | RP_SIZE_4 << RP_SIZE_SHIFT, {0, zz(0x1000), zz(1)}) +
      B::rec(RP_WRITE | RP_SIZE_4 << RP_SIZE_SHIFT, {0, zz(0x1008), zz(1)}) +
      B::rec(RP_WRITE | RP_SIZE_4 << RP_SIZE_SHIFT, {0, zz(0x10), zz(1)}) +
      B::rec(RP_WRITE | RP_SIZE_4 << RP_SIZE_SHIFT, {0, zz(0x1000), zz(1)});
  std::string bytes =
      B(2).block(RP_BLOCK_GLOBALS, globals).events(1, 0, 5, recs).end().bytes();
  auto t = fromBinary(bytes);
  ASSERT_TRUE(static_cast<bool>(t)) << t.error().message;
  EXPECT_EQ(toText(*t), "t1 wr x@0x1000 1\n"
                        "t1 wr x@0x2000 1\n"
                        "t1 wr a+8 1\n"
                        "t1 wr 0x3018 1\n"
                        "t1 wr 0x4018 1\n");
  // A version-1 file has no GLOBALS block type.
  auto v1 = fromBinary(B(1).block(RP_BLOCK_GLOBALS, globals).end().bytes());
  ASSERT_FALSE(static_cast<bool>(v1));
  EXPECT_EQ(v1.error().message,
            "test.rptrace: byte 16 (after 0 events): unknown block type 6");
}
