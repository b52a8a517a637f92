//===- test/model/grouping_test.cpp - One race per group, none lost -------===//
//
// The default report (one race per pair of source locations) decides each
// signature group from its nearest candidates first and enumerates the
// rest of a group only when none of them races (analysis/candidate_groups.h).
// On random traces, with source locations shared between events and
// without any, the groups it reports must be exactly the groups of the
// races the whole-trace formula finds over all pairs — no group lost, none
// invented — with the full enumeration forced (one nearest pair per group)
// and with the fast path off.
//
#include "model_check.h"
#include "random_trace.h"

#include "racepredict/analysis/candidate_groups.h"
#include "racepredict/solver/race_predictor.h"
#include "racepredict/trace/text_format.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>

using namespace racepredict;
using namespace racepredict::testsupport;

namespace {

/// Gives every event line a source location out of a few, so that
/// signature groups hold several event pairs.
std::string withSources(const std::string &text, uint64_t seed) {
  std::istringstream in(text);
  std::string line, out;
  uint64_t n = 0;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '#' && line.rfind("init ", 0) != 0)
      line += " @g.c:" + std::to_string(1 + (n++ * 7 + seed) % 5);
    out += line + "\n";
  }
  return out;
}

using Groups = std::set<std::pair<uint64_t, uint64_t>>;

Groups groupsOf(const trace::Trace &t, const solver::RaceResult &r) {
  Groups g;
  for (const auto &f : r.races) {
    uint64_t x = analysis::signatureKey(t, f.first),
             y = analysis::signatureKey(t, f.second);
    g.insert({std::min(x, y), std::max(x, y)});
  }
  return g;
}

void runMix(const TraceFeatures &f, uint64_t seedBase, int count,
            bool sources) {
  RandomTraceOptions o;
  o.features = f;
  o.minEvents = 8;
  o.maxEvents = 20;
  int failures = 0, racy = 0;
  for (int i = 0; i < count; ++i) {
    uint64_t seed = seedBase + static_cast<uint64_t>(i);
    std::string text = randomTrace(seed, o).text;
    if (sources)
      text = withSources(text, seed);
    std::istringstream in(text);
    auto t = trace::parseTextTrace(in, "random.rpt.txt");
    ASSERT_TRUE(static_cast<bool>(t)) << text;
    analysis::TraceIndex idx(*t);
    solver::RaceOptions all;
    all.allPairs = true;
    all.wholeTrace = true;
    all.noFastPath = true;
    Groups want = groupsOf(*t, solver::predictRaces(idx, all));
    racy += !want.empty();
    std::string why;
    for (size_t keep : {size_t{16}, size_t{1}})
      for (bool fast : {true, false}) {
        solver::RaceOptions d;
        d.keepPerGroup = keep;
        d.noFastPath = !fast;
        solver::RaceResult r = solver::predictRaces(idx, d);
        Groups got = groupsOf(*t, r);
        if (got != want || r.races.size() != got.size() || !r.unknowns.empty())
          why += "  keep " + std::to_string(keep) +
                 (fast ? "" : ", no fast path") + ": " +
                 std::to_string(got.size()) + " groups in " +
                 std::to_string(r.races.size()) + " races, " +
                 std::to_string(r.unknowns.size()) + " unknown\n";
      }
    if (!why.empty() && ++failures <= 3)
      ADD_FAILURE() << "seed " << seed << "\n"
                    << text << "all pairs: " << want.size() << " groups\n"
                    << why;
  }
  EXPECT_EQ(failures, 0) << "of " << count << " traces";
  EXPECT_GT(racy, count / 5) << "too few racy traces";
}

} // namespace

TEST(Grouping, SharedSourceLocations) {
  TraceFeatures f;
  f.rwlocks = f.tryfail = f.atomics = f.precise = f.condvars = f.semaphores =
      f.allocs = true;
  runMix(f, 31000000, 600, true);
}

TEST(Grouping, NoSourceLocations) {
  TraceFeatures f;
  f.atomics = f.precise = f.condvars = true;
  runMix(f, 32000000, 400, false);
}
