//===- binary_robustness_test.cpp - Cut, corrupt and foreign binary files -===//
//
// The reader must end every bad input in an error sentence (or, for a cut
// file under allowTruncated, in the events before the cut): never a crash, a
// hang or an allocation the file's size does not justify. Build with
// -fsanitize=address,undefined to check the "never crash" half properly.
//
#include "binary_builder.h"
#include "trace_test_util.h"

#include <map>
#include <random>

using namespace racepredict::trace;
using namespace racepredict::trace::test;

namespace {

/// One line per event with what survives a cut unchanged (wait matches and
/// branch dependences may point past the cut and are resolved differently).
std::vector<std::string> eventKeys(const Trace &t) {
  std::vector<std::string> out;
  for (const Event &e : t.events)
    out.push_back(t.threadName(e.thread) + " " + opName(e.kind) + " " +
                  t.objName(e) + " " + std::to_string(e.value));
  return out;
}

} // namespace

TEST(BinaryTruncation, EveryCutOffset) {
  Trace full = parseText(kAllKinds);
  std::string bin = toBinary(full);
  std::vector<std::string> all = eventKeys(full);
  // Per thread, the events in order: a cut keeps a prefix of each.
  std::map<std::string, std::vector<std::string>> perThread;
  for (size_t i = 0; i < all.size(); ++i)
    perThread[full.threadName(full.events[i].thread)].push_back(all[i]);
  size_t lastCount = 0;
  const size_t endBlock = bin.size() - RP_BLOCK_HEADER_SIZE;
  for (size_t cut = 0; cut < bin.size(); ++cut) {
    SCOPED_TRACE("cut at " + std::to_string(cut));
    std::string part = bin.substr(0, cut);
    auto strict = fromBinary(part);
    ASSERT_FALSE(static_cast<bool>(strict));
    if (cut >= RP_HEADER_SIZE) {
      EXPECT_NE(strict.error().message.find("test.rptrace: truncated at byte " +
                                            std::to_string(cut) + " after "),
                std::string::npos)
          << strict.error().message;
    }
    ReadOptions lenient;
    lenient.allowTruncated = true;
    ReadInfo info;
    auto t = fromBinary(part, lenient, &info);
    if (cut < RP_HEADER_SIZE) {
      EXPECT_FALSE(static_cast<bool>(t));
      continue;
    }
    ASSERT_TRUE(static_cast<bool>(t)) << t.error().message;
    expectConsistent(*t);
    EXPECT_TRUE(info.truncated);
    EXPECT_EQ(info.truncation,
              "test.rptrace: truncated at byte " + std::to_string(cut) +
                  " after " + std::to_string(t->events.size()) + " events");
    std::map<std::string, size_t> seen;
    for (const std::string &k : eventKeys(*t)) {
      std::string th = k.substr(0, k.find(' '));
      size_t &n = seen[th];
      ASSERT_LT(n, perThread[th].size());
      EXPECT_EQ(k, perThread[th][n]) << "not a per-thread prefix";
      ++n;
    }
    EXPECT_GE(t->events.size(), lastCount) << "a longer file lost events";
    lastCount = t->events.size();
    if (cut == endBlock) { // only the END block is missing
      EXPECT_EQ(eventKeys(*t), all);
    }
  }
}

TEST(BinaryCorruption, RandomMutationsNeverCrash) {
  std::string bin = toBinary(parseText(kAllKinds));
  std::mt19937 rng(12345);
  size_t ok = 0, errors = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    std::string m = bin;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < edits; ++k) {
      size_t at = rng() % m.size();
      switch (rng() % 4) {
      case 0: // flip one bit
        m[at] = static_cast<char>(m[at] ^ (1 << (rng() % 8)));
        break;
      case 1: // random byte
        m[at] = static_cast<char>(rng());
        break;
      case 2: // insert
        m.insert(m.begin() + static_cast<long>(at), static_cast<char>(rng()));
        break;
      default: // delete
        m.erase(at, 1);
        break;
      }
    }
    for (bool lenient : {false, true}) {
      ReadOptions opts;
      opts.allowTruncated = lenient;
      auto t = fromBinary(m, opts);
      if (!t) {
        ++errors;
        EXPECT_EQ(t.error().message.rfind("test.rptrace: ", 0), 0u)
            << t.error().message;
        continue;
      }
      ++ok;
      expectConsistent(*t);
      // Whatever was accepted is a trace the writer and reader agree on.
      std::string again = toBinary(*t);
      auto t2 = fromBinary(again);
      ASSERT_TRUE(static_cast<bool>(t2)) << t2.error().message;
      EXPECT_EQ(toBinary(*t2), again);
    }
  }
  EXPECT_GT(errors, 0u);
  EXPECT_GT(ok, 0u); // e.g. a changed value or name still reads
}

TEST(BinaryErrors, OtherVersionNamesBothVersions) {
  std::string bytes = BinaryBuilder(9).end().bytes();
  auto t = fromBinary(bytes);
  ASSERT_FALSE(static_cast<bool>(t));
  EXPECT_EQ(t.error().message,
            "test.rptrace: binary trace format version 9 is not supported: "
            "this racepredict reads versions 1 to 7 (use the racepredict "
            "that recorded it to convert it to text)");
}

TEST(BinaryErrors, UnknownKindNamesOffsetAndEventCount) {
  using B = BinaryBuilder;
  // header 16 + block header 8 + thread, first seq, count (3 bytes) = 27;
  // the first record (begin) takes 2 bytes, so the bad one starts at 29.
  std::string bytes =
      B().events(1, 0, 2, B::rec(RP_BEGIN, {0}) + B::rec(77, {0}))
          .end()
          .bytes();
  auto t = fromBinary(bytes);
  ASSERT_FALSE(static_cast<bool>(t));
  EXPECT_EQ(t.error().message,
            "test.rptrace: byte 29 (after 1 events): unknown event kind 77");
}

TEST(BinaryErrors, StructuralProblems) {
  using B = BinaryBuilder;
  auto err = [](const std::string &bytes) {
    auto t = fromBinary(bytes);
    return t ? std::string("accepted") : t.error().message;
  };
  EXPECT_NE(err("RPTRACX\0garbage!"), "accepted");
  EXPECT_NE(err("hello").find("not a racepredict binary trace"),
            std::string::npos);
  EXPECT_NE(err(B().block(static_cast<rp_block_type>(9), "").end().bytes())
                .find("unknown block type 9"),
            std::string::npos);
  EXPECT_NE(err(B().end().bytes() + "x").find("data after the END block"),
            std::string::npos);
  // Two events with one seq (two threads claim seq 0).
  EXPECT_NE(err(B().events(1, 0, 1, B::rec(RP_BEGIN, {0}))
                    .events(2, 0, 1, B::rec(RP_BEGIN, {0}))
                    .end()
                    .bytes())
                .find("two events have seq 0"),
            std::string::npos);
  // A count far beyond the block's bytes is rejected before any allocation.
  EXPECT_NE(err(B().events(1, 0, uint64_t{1} << 60, B::rec(RP_BEGIN, {0}))
                    .end()
                    .bytes())
                .find("claims"),
            std::string::npos);
  // A wait whose notify is not a notify on its cond.
  EXPECT_NE(err(B().events(1, 0, 2,
                           B::rec(RP_WRITE, {0, 5, 4, 0}) +
                               B::rec(RP_WAIT, {0, 1, 2, 1}))
                    .end()
                    .bytes())
                .find("is not a signal/broadcast"),
            std::string::npos);
  // A branch depending on a write.
  EXPECT_NE(err(B().events(1, 0, 2,
                           B::rec(RP_WRITE, {0, 5, 4, 0}) +
                               B::rec(RP_BRANCH, {0, 2, 1}))
                    .end()
                    .bytes())
                .find("is not a read of thread t1"),
            std::string::npos);
  // A thread forking itself.
  EXPECT_NE(err(B().events(1, 0, 1, B::rec(RP_FORK, {0, 1})).end().bytes())
                .find("a thread cannot fork itself"),
            std::string::npos);
  // An undefined source id.
  EXPECT_NE(err(B().events(1, 0, 1, B::rec(RP_BEGIN | RP_HAS_SRC, {0, 3}))
                    .end()
                    .bytes())
                .find("source id 3"),
            std::string::npos);
}
