//===- signature_test.cpp - Signatures ignore what changes between runs ---===//
#include "racepredict/report/signature.h"

#include "report_test_util.h"

using namespace racepredict;
using namespace racepredict::report;

TEST(Signature, NormalisedPaths) {
  EXPECT_EQ(normalisedPath("/src/proj/a/b/race.c", "/src/proj"), "a/b/race.c");
  EXPECT_EQ(normalisedPath("/src/proj/a/../b/race.c", "/src/proj/"),
            "b/race.c");
  EXPECT_EQ(normalisedPath("/usr/include/stdio.h", "/src/proj"), "stdio.h");
  EXPECT_EQ(normalisedPath("/src/proj/a/race.c", ""), "race.c");
  EXPECT_EQ(normalisedPath("./a/race.c", "/src/proj"), "a/race.c");
  EXPECT_EQ(normalisedPath("../x/race.c", "/src/proj"), "race.c");
  EXPECT_EQ(normalisedPath("", "/src/proj"), "");
}

TEST(Signature, RaceSignatureIsOrderFreeAndIgnoresEventsAndThreads) {
  trace::Trace t = testutil::parse(testutil::kRaceTrace);
  Finding f = testutil::raceOf(t);
  EXPECT_EQ(findingSignature(f, "/src/proj"),
            "race|a/b/race.c:10:main|a/b/race.c:20:worker");
  EXPECT_EQ(findingSignature(f, ""), "race|race.c:10:main|race.c:20:worker");
  // Another run: other event indices, thread names, order of the pair.
  Finding g = f;
  std::swap(g.sites[0], g.sites[1]);
  g.sites[0].event = 77;
  g.sites[0].thread = "t9";
  g.sites[1].column = 3;
  g.witness.clear();
  EXPECT_EQ(findingSignature(g, "/src/proj"), findingSignature(f, "/src/proj"));
  // A different line is a different finding.
  g.sites[0].line = 21;
  EXPECT_NE(findingSignature(g, "/src/proj"), findingSignature(f, "/src/proj"));
}

TEST(Signature, SitesWithoutSourceUseTheVariableNotTheAddress) {
  Site named;
  named.object = "x";
  named.op = "wr";
  EXPECT_EQ(siteKey(named, ""), "?x:wr");
  Site addr;
  addr.object = "0x7ffd1234";
  addr.op = "rd";
  EXPECT_EQ(siteKey(addr, ""), "?:rd");
}

TEST(Signature, DeadlockCycleRotationDoesNotMatter) {
  Finding f;
  f.kind = FindingKind::Deadlock;
  auto site = [](const char *file, uint32_t line, const char *fn) {
    Site s;
    s.file = file;
    s.line = line;
    s.function = fn;
    return s;
  };
  f.sites = {site("/p/d.c", 6, "a"), site("/p/d.c", 13, "b"),
             site("/p/d.c", 5, "a"), site("/p/d.c", 12, "b")};
  Finding g = f;
  g.sites = {f.sites[1], f.sites[0], f.sites[3], f.sites[2]};
  EXPECT_EQ(findingSignature(f, "/p"),
            "deadlock|d.c:13:b|d.c:6:a||d.c:12:b|d.c:5:a");
  EXPECT_EQ(findingSignature(g, "/p"), findingSignature(f, "/p"));
}

TEST(Signature, FingerprintIsFnv1a64) {
  // FNV-1a 64 test vectors.
  EXPECT_EQ(signatureFingerprint(""), "cbf29ce484222325");
  EXPECT_EQ(signatureFingerprint("a"), "af63dc4c8601ec8c");
}
