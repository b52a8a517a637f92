//===- test/model/hb_streaming_test.cpp - Streaming HB = quadratic HB -----===//
//
// `analyze --hb` counts racing pairs and finds one pair per source-location
// group in one pass (analysis/hb_races.cpp). On random traces, with and
// without shared source locations, it must agree with the issue-3
// implementation that kept a clock per access and enumerated every
// conflicting pair (test/support/hb_reference.cpp): the same pairs, the
// same count, and exactly the groups of those pairs.
//
#include "hb_reference.h"
#include "random_trace.h"

#include "racepredict/analysis/candidate_groups.h"
#include "racepredict/analysis/hb_races.h"
#include "racepredict/trace/text_format.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>

using namespace racepredict;
using namespace racepredict::testsupport;

namespace {

std::string withSources(const std::string &text, uint64_t seed) {
  std::istringstream in(text);
  std::string line, out;
  uint64_t n = 0;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '#' && line.rfind("init ", 0) != 0)
      line += " @h.c:" + std::to_string(1 + (n++ * 5 + seed) % 4);
    out += line + "\n";
  }
  return out;
}

} // namespace

TEST(HbStreaming, AgreesWithThePairwiseDetector) {
  TraceFeatures f;
  f.rwlocks = f.tryfail = f.atomics = f.condvars = f.barriers = f.semaphores =
      f.allocs = true;
  RandomTraceOptions o;
  o.features = f;
  o.minEvents = 10;
  o.maxEvents = 40;
  int failures = 0, racy = 0;
  for (int i = 0; i < 600; ++i) {
    uint64_t seed = 41000000 + static_cast<uint64_t>(i);
    std::string text = randomTrace(seed, o).text;
    if (i % 2)
      text = withSources(text, seed);
    std::istringstream in(text);
    auto t = trace::parseTextTrace(in, "random.rpt.txt");
    ASSERT_TRUE(static_cast<bool>(t)) << text;
    analysis::TraceIndex idx(*t);
    auto want = hbRacesReference(idx);
    auto got = analysis::hbRaces(idx);
    analysis::HbSummary sum = analysis::hbSummary(idx);
    std::set<std::pair<uint64_t, uint64_t>> wantGroups, gotGroups;
    auto key = [&](analysis::EventId a, analysis::EventId b) {
      uint64_t x = analysis::signatureKey(*t, a),
               y = analysis::signatureKey(*t, b);
      return std::make_pair(std::min(x, y), std::max(x, y));
    };
    for (auto [a, b] : want)
      wantGroups.insert(key(a, b));
    bool repsRace = true;
    for (auto [a, b] : sum.groups) {
      gotGroups.insert(key(a, b));
      repsRace = repsRace && std::binary_search(want.begin(), want.end(),
                                                std::make_pair(a, b));
    }
    racy += !want.empty();
    if ((got != want || sum.pairs != want.size() || gotGroups != wantGroups ||
         sum.groups.size() != gotGroups.size() || !repsRace) &&
        ++failures <= 3)
      ADD_FAILURE() << "seed " << seed << "\n"
                    << text << "reference " << want.size() << " pairs, "
                    << wantGroups.size() << " groups; streaming " << got.size()
                    << " pairs, counted " << sum.pairs << ", "
                    << sum.groups.size() << " groups";
  }
  EXPECT_EQ(failures, 0);
  EXPECT_GT(racy, 100);
}
