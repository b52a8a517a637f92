//===- test/model/slicing_test.cpp - Slicing changes no verdict -----------===//
//
// Issue 7's "how we will know": on random traces, the per-candidate sliced
// formulas (docs/slicing.md) decide exactly what the one whole-trace formula
// decides, in every configuration of the slicer — helpers taken up front,
// helpers only through escapes (the expansion loop), lock exclusion up
// front or only lazily — and all of them agree with the brute-force
// enumerator of docs/semantics.md. Every candidate is decided by the solver
// (no closure fast path), over all pairs, with no unknown allowed. Longer
// traces, beyond the enumerator's reach, compare slices against the whole
// formula only.
//
#include "model_check.h"
#include "random_trace.h"

#include "racepredict/solver/race_predictor.h"
#include "racepredict/trace/text_format.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <sstream>
#include <string>

using namespace racepredict;
using namespace racepredict::testsupport;

namespace {

struct Config {
  const char *name;
  bool wholeTrace, lazySlices;
  size_t eagerLockPairs;
};

const Config kConfigs[] = {
    {"whole trace", true, false, 4096},
    {"slices", false, false, 4096},
    {"lazy slices", false, true, 4096},
    {"lazy slices, lazy locks", false, true, 0},
    {"slices, lazy locks", false, false, 0},
};

Pairs predict(const analysis::TraceIndex &idx, const Config &c,
              std::string *unknown) {
  solver::RaceOptions o;
  o.allPairs = true;
  o.noFastPath = true;
  o.wholeTrace = c.wholeTrace;
  o.lazySlices = c.lazySlices;
  o.eagerLockPairs = c.eagerLockPairs;
  solver::RaceResult r = solver::predictRaces(idx, o);
  Pairs got;
  for (const auto &f : r.races)
    got.insert({f.first, f.second});
  if (!r.unknowns.empty())
    *unknown = std::to_string(r.unknowns.size()) + " unknown, first (" +
               std::to_string(r.unknowns[0].first) + "," +
               std::to_string(r.unknowns[0].second) +
               "): " + r.unknowns[0].reason;
  return got;
}

/// Checks `count` random traces; with `enumerate`, against the enumerator
/// too.
void runMix(const TraceFeatures &f, uint64_t seedBase, int count, int minEvents,
            int maxEvents, int locations, bool enumerate) {
  RandomTraceOptions o;
  o.features = f;
  o.minEvents = minEvents;
  o.maxEvents = maxEvents;
  o.maxLocations = locations;
  seedBase = modelSeedBase(seedBase);
  int failures = 0, racy = 0;
  for (int i = 0; i < count; ++i) {
    uint64_t seed = seedBase + static_cast<uint64_t>(i);
    RandomTrace rt = randomTrace(seed, o);
    std::istringstream in(rt.text);
    auto t = trace::parseTextTrace(in, "random.rpt.txt");
    ASSERT_TRUE(static_cast<bool>(t)) << rt.text;
    analysis::TraceIndex idx(*t);
    Pairs reference;
    std::string why;
    if (enumerate) {
      EnumerationResult en = enumerateRaces(idx);
      ASSERT_FALSE(en.truncated) << rt.text;
      for (const auto &[p, sigma] : en.races)
        reference.insert(p);
    } else {
      std::string unknown;
      reference = predict(idx, kConfigs[0], &unknown);
      if (!unknown.empty())
        why += "  whole trace: " + unknown + "\n";
    }
    racy += !reference.empty();
    for (const Config &c : kConfigs) {
      if (!enumerate && c.wholeTrace)
        continue;
      std::string unknown;
      Pairs got = predict(idx, c, &unknown);
      if (got != reference || !unknown.empty())
        why += std::string("  ") + c.name + " = " + formatPairs(got) + " " +
               unknown + "\n";
    }
    if (!why.empty() && ++failures <= 3)
      ADD_FAILURE() << "seed " << seed << "\n"
                    << rt.text << (enumerate ? "enumerator" : "whole trace")
                    << " = " << formatPairs(reference) << "\n"
                    << why;
  }
  EXPECT_EQ(failures, 0) << "of " << count << " traces";
  EXPECT_GT(racy, count / 5) << "too few racy traces";
}

} // namespace

TEST(SlicingChangesNoVerdict, LocksBranchesAndValues) {
  TraceFeatures f;
  f.atomics = f.precise = true;
  runMix(f, 21000000, 250, 8, 18, 3, true);
}

TEST(SlicingChangesNoVerdict, TrylocksAndReadWriteLocks) {
  TraceFeatures f;
  f.rwlocks = f.tryfail = f.precise = f.oddLocks = true;
  runMix(f, 22000000, 200, 8, 18, 3, true);
}

TEST(SlicingChangesNoVerdict, WaitsBarriersSemaphores) {
  TraceFeatures f;
  f.condvars = f.barriers = f.semaphores = f.precise = true;
  runMix(f, 23000000, 200, 8, 18, 2, true);
}

TEST(SlicingChangesNoVerdict, LongValueChains) {
  TraceFeatures f;
  f.locks = false;
  f.atomics = f.precise = true;
  runMix(f, 24000000, 200, 12, 22, 2, true);
}

TEST(SlicingChangesNoVerdict, Everything) {
  TraceFeatures f;
  f.rwlocks = f.tryfail = f.atomics = f.precise = f.condvars = f.barriers =
      f.semaphores = f.allocs = f.channels = true;
  runMix(f, 25000000, 250, 8, 20, 3, true);
}

// Beyond the enumerator: longer traces with more threads' worth of history,
// where slices are strictly smaller than the trace.
TEST(SlicingChangesNoVerdict, LongerTracesAgainstTheWholeFormula) {
  TraceFeatures f;
  f.rwlocks = f.tryfail = f.atomics = f.precise = f.condvars = f.semaphores =
      true;
  runMix(f, 26000000, 120, 40, 70, 4, false);
}

// Issue 20: writes that depend on some reads only; a slice still takes
// every read before a write that can feed a read that matters (a superset:
// the formula uses the dependences), and must decide what the whole does.
TEST(SlicingChangesNoVerdict, WriteDependences) {
  TraceFeatures f;
  f.atomics = f.precise = f.writeDeps = f.counters = true;
  runMix(f, 27000000, 250, 8, 20, 3, true);
}

TEST(SlicingChangesNoVerdict, LongerTracesWithWriteDependences) {
  TraceFeatures f;
  f.rwlocks = f.tryfail = f.atomics = f.precise = f.condvars = f.semaphores =
      f.writeDeps = true;
  runMix(f, 28000000, 120, 40, 70, 4, false);
}

// --window N (RVPredict's fixed windows, for comparison): the events before
// a window run as observed, only the window's events are reordered. A
// window as long as the trace is the whole analysis; shorter windows find
// a subset (every witness is validated on the whole trace, and both
// accesses lie in one window).
TEST(Windows, WholeWindowIsExactShortWindowsAreSound) {
  TraceFeatures f;
  f.rwlocks = f.tryfail = f.atomics = f.precise = f.condvars = f.barriers =
      f.semaphores = true;
  RandomTraceOptions o;
  o.features = f;
  o.minEvents = 10;
  o.maxEvents = 24;
  int failures = 0, lost = 0;
  uint64_t base = 27000000;
  base = modelSeedBase(base);
  for (int i = 0; i < 400; ++i) {
    uint64_t seed = base + static_cast<uint64_t>(i);
    RandomTrace rt = randomTrace(seed, o);
    if (!rt.reproducible)
      continue; // windows assume the observed run is a schedule
    std::istringstream in(rt.text);
    auto t = trace::parseTextTrace(in, "random.rpt.txt");
    ASSERT_TRUE(static_cast<bool>(t)) << rt.text;
    analysis::TraceIndex idx(*t);
    std::string unknown;
    Pairs whole = predict(idx, kConfigs[0], &unknown);
    std::string why;
    for (uint32_t w : {1000u, 3u, 5u, 8u})
      for (bool lazy : {false, true}) {
        solver::RaceOptions wo;
        wo.allPairs = true;
        wo.noFastPath = true;
        wo.window = w;
        wo.lazySlices = lazy;
        solver::RaceResult r = solver::predictRaces(idx, wo);
        Pairs got;
        for (const auto &fd : r.races) {
          got.insert({fd.first, fd.second});
          if (fd.first / w != fd.second / w ||
              !whole.count({fd.first, fd.second}))
            why += "  window " + std::to_string(w) + ": unsound pair (" +
                   std::to_string(fd.first) + "," + std::to_string(fd.second) +
                   ")\n";
        }
        if (!r.unknowns.empty())
          why += "  window " + std::to_string(w) + ": " + r.unknowns[0].reason +
                 "\n";
        if (w == 1000 && got != whole)
          why += "  window 1000 = " + formatPairs(got) + "\n";
        if (w != 1000)
          lost += static_cast<int>(whole.size() - got.size());
      }
    if (!why.empty() && ++failures <= 3)
      ADD_FAILURE() << "seed " << seed << "\n"
                    << rt.text << "whole = " << formatPairs(whole) << "\n"
                    << why;
  }
  EXPECT_EQ(failures, 0);
  // The point of the comparison: short windows do lose races.
  EXPECT_GT(lost, 0);
}

// A read of a value no recorded write produced (in real traces: a write in
// uninstrumented code, such as libstdc++'s vector relocation in
// bench/real/cv_queue.cpp) before a branch every witness of a pair runs:
// K_r → conc(r) = false decides the pair by unit propagation
// (SliceEncoding::impossibleReadForced), before any solver check. Both
// candidates, (1,5) on z and (2,6) on y, follow the branch in t0.
TEST(SlicingChangesNoVerdict, ReadWithoutWriterIsUnsatWithoutTheSolver) {
  const char *text = "init x 0\n"
                     "t0 fork t1\n"
                     "t1 wr z 1 @p.c:10\n" // 1
                     "t1 wr y 1 @p.c:11\n" // 2
                     "t0 rd x 5 @p.c:20\n" // 3: no write of 5
                     "t0 br @p.c:21\n"
                     "t0 wr z 2 @p.c:22\n"  // 5
                     "t0 rd y 0 @p.c:23\n"; // 6
  std::istringstream in(text);
  auto t = trace::parseTextTrace(in, "no_writer.rpt.txt");
  ASSERT_TRUE(static_cast<bool>(t));
  analysis::TraceIndex idx(*t);
  EXPECT_TRUE(enumerateRaces(idx).races.empty());
  solver::RaceOptions o;
  o.allPairs = true;
  o.noFastPath = true;
  solver::RaceResult r = solver::predictRaces(idx, o);
  EXPECT_TRUE(r.races.empty());
  EXPECT_TRUE(r.unknowns.empty());
  EXPECT_EQ(r.stats.candidates, 2u);
  EXPECT_EQ(r.stats.propagatedUnsat, 2u);
  EXPECT_EQ(r.stats.solverCalls, 0u);
}

// pigz's write list (issue 17 on main's recordings): a reader holds the
// list lock while it reads a node that another thread unlinks under the
// lock and then frees. In a witness of (read, free) the unlinking section
// is complete and the reader's is open, so the unlinking came first and
// its write of the head lies between the head's only write of the node's
// address and the reader's read of it: no writer is left, and the query
// is unsatisfiable by propagation. Read outside its section, the node's
// field does race with the free, and the rule leaves that alone.
TEST(SlicingChangesNoVerdict, ReadInsideHeldSectionLosesOverwrittenWriters) {
  auto decide = [](const char *text, const char *name) {
    std::istringstream in(text);
    auto t = trace::parseTextTrace(in, name);
    EXPECT_TRUE(static_cast<bool>(t));
    analysis::TraceIndex idx(*t);
    solver::RaceOptions o;
    o.allPairs = true;
    o.noFastPath = true;
    solver::RaceResult r = solver::predictRaces(idx, o);
    EXPECT_TRUE(r.unknowns.empty());
    std::set<std::pair<analysis::EventId, analysis::EventId>> found, ref;
    for (const solver::RaceFinding &f : r.races)
      found.insert({f.first, f.second});
    for (const auto &[p, sigma] : enumerateRaces(idx).races)
      ref.insert(p);
    EXPECT_EQ(found, ref) << name;
    return r;
  };
  const char *inside = "init head 0\n"
                       "t0 fork t1\n"
                       "t0 fork t2\n"
                       "t0 fork t3\n"
                       "t2 wr seq 7 @list.c:5\n" // 3
                       "t2 acq L\n"
                       "t2 wr head 100 @list.c:7\n"
                       "t2 rel L\n"
                       "t3 acq L\n"
                       "t3 rd head 100 @list.c:20\n"
                       "t3 br @list.c:21\n"
                       "t3 rd seq 7 @list.c:22\n" // 10
                       "t3 rel L\n"
                       "t1 acq L\n"
                       "t1 rd head 100 @list.c:30\n"
                       "t1 br @list.c:31\n"
                       "t1 wr head 0 @list.c:32\n"
                       "t1 rel L\n"
                       "t1 free seq 8 @list.c:34\n"; // 17
  solver::RaceResult r = decide(inside, "held_section.rpt.txt");
  EXPECT_TRUE(r.races.empty());
  EXPECT_EQ(r.stats.candidates, 1u);
  EXPECT_EQ(r.stats.propagatedUnsat, 1u);
  EXPECT_EQ(r.stats.solverCalls, 0u);

  std::string outside(inside);
  outside.replace(outside.find("t3 rd seq 7 @list.c:22\nt3 rel L\n"),
                  std::string("t3 rd seq 7 @list.c:22\nt3 rel L\n").size(),
                  "t3 rel L\nt3 rd seq 7 @list.c:22\n");
  r = decide(outside.c_str(), "after_section.rpt.txt");
  ASSERT_EQ(r.races.size(), 1u);
  EXPECT_EQ(r.races[0].first, 11u);
  EXPECT_EQ(r.races[0].second, 17u);
  EXPECT_EQ(r.stats.propagatedUnsat, 0u);
}
