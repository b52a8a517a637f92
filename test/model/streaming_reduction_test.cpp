//===- test/model/streaming_reduction_test.cpp - Streaming = whole --------===//
//
// Issue 17: the thread-local reduction of a binary trace computed while
// loading it, a few threads at a time (analysis/streaming_reduction.h), is
// the reduction of the whole trace: the same kept events (`original`), each
// with the same kind, thread, location name, value, dependence list and
// call stack. Random traces (values through private locations into listed
// branches and writes, allocations, atomics, trylocks, waits, barriers,
// semaphores; some writes changed so that later reads see a value no
// recorded write wrote, which the v4 reader renames) are written in the
// recorder's v4 layout and loaded both ways, one thread per load.
//
#include "model_check.h"
#include "random_trace.h"

#include "racepredict/analysis/access_pieces.h"
#include "racepredict/analysis/streaming_reduction.h"
#include "racepredict/trace/binary_format.h"
#include "racepredict/trace/text_format.h"
#include "racepredict/trace/trace_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

using namespace racepredict;
using namespace racepredict::testsupport;

namespace {

std::string text(const trace::Trace &t) {
  std::ostringstream out;
  trace::writeTextTrace(t, out);
  // Stacks are not in the text: one line of stack node ids.
  for (EventId i = 0; i < t.events.size(); ++i)
    out << (i ? " " : "# stacks ") << t.stackOf(i);
  return out.str();
}

/// Makes every `every`-th plain write without a list write another value:
/// the reads after it see a value no recorded write wrote (a hidden write).
void hideWrites(trace::Trace &t, uint64_t seed, int every) {
  int k = static_cast<int>(seed % static_cast<uint64_t>(every));
  for (trace::Event &e : t.events)
    if (e.kind == trace::EventKind::Write && !t.hasDeps(e) && ++k % every == 0)
      e.value += 100;
}

size_t threadsWithEvents(const trace::Trace &t) {
  std::vector<bool> seen(t.numThreads(), false);
  for (const trace::Event &e : t.events)
    seen[e.thread] = true;
  return static_cast<size_t>(std::count(seen.begin(), seen.end(), true));
}

struct Mix {
  TraceFeatures features;
  int count, maxEvents, locations;
  size_t maxListed = 16;
  size_t loadEvents = 1; ///< one thread per load
  int hideEvery = 0;     ///< 0: no hidden writes
};

/// Checks `m.count` random traces; returns how many had something dropped.
int runMix(const Mix &m, uint64_t seedBase) {
  RandomTraceOptions o;
  o.features = m.features;
  o.minEvents = m.maxEvents / 2;
  o.maxEvents = m.maxEvents;
  o.maxLocations = m.locations;
  seedBase = modelSeedBase(seedBase);
  std::string file = (std::filesystem::temp_directory_path() /
                      ("rp-streaming-" + std::to_string(getpid()) + ".rptrace"))
                         .string();
  int failures = 0, reduced = 0, unreadable = 0;
  for (int i = 0; i < m.count; ++i) {
    uint64_t seed = seedBase + static_cast<uint64_t>(i);
    RandomTrace rt = randomTrace(seed, o);
    std::istringstream in(rt.text);
    auto parsed = trace::parseTextTrace(in, "random.rpt.txt");
    if (!parsed) {
      ADD_FAILURE() << parsed.error().message << "\n" << rt.text;
      break;
    }
    if (m.hideEvery)
      hideWrites(*parsed, seed, m.hideEvery);
    {
      std::ofstream out(file, std::ios::binary);
      trace::writeBinaryTrace(*parsed, out, 4);
    }
    auto whole = trace::readTraceFile(file);
    if (!whole) {
      // A name the binary format cannot carry (the generator's `\0`
      // location, as text): not a trace a recorder writes.
      EXPECT_NE(whole.error().message.find("unprintable name"),
                std::string::npos)
          << "seed " << seed << ": " << whole.error().message;
      ++unreadable;
      continue;
    }
    std::vector<bool> overlapping = analysis::overlappingLocations(*whole);
    analysis::LocalReduction want = analysis::reduceThreadLocal(
        *whole, m.maxListed, overlapping.empty() ? nullptr : &overlapping);
    std::string why;
    analysis::StreamingLoadStats st;
    std::optional<analysis::LocalReduction> got = analysis::reduceWhileLoading(
        file, m.maxListed, &why, &st, m.loadEvents);
    std::string diff;
    if (!got)
      diff = "  not loaded by streaming: " + why + "\n";
    else if (got->original != want.original)
      diff = "  other events kept\n";
    else if (text(got->trace) != text(want.trace))
      diff = "  streaming:\n" + text(got->trace) + "\n  whole:\n" +
             text(want.trace) + "\n";
    else if (got->stats.events != want.stats.events ||
             got->stats.droppedBranches != want.stats.droppedBranches ||
             got->stats.droppedAccesses != want.stats.droppedAccesses ||
             got->stats.localLocations != want.stats.localLocations ||
             got->stats.keptLocalAccesses != want.stats.keptLocalAccesses)
      diff = "  other statistics\n";
    else if (m.loadEvents == 1 && st.loads != threadsWithEvents(*whole))
      diff = "  " + std::to_string(st.loads) + " loads\n";
    reduced += want.stats.keptEvents < want.stats.events;
    if (!diff.empty() && ++failures <= 3)
      ADD_FAILURE() << "seed " << seed << "\n" << text(*whole) << diff;
  }
  std::filesystem::remove(file);
  EXPECT_LT(unreadable, m.count / 4);
  return reduced;
}

} // namespace

TEST(StreamingReduction, ValuesThroughPrivateLocations) {
  Mix m{privatesAndLists(), 400 * modelScale(), 40, 2};
  EXPECT_GT(runMix(m, 31000), 250);
}

TEST(StreamingReduction, ListsTooLongToCarry) {
  Mix m{privatesAndLists(), 200 * modelScale(), 40, 2};
  m.maxListed = 1;
  EXPECT_GT(runMix(m, 32000), 120);
}

TEST(StreamingReduction, AllocationsAtomicsTrylocks) {
  TraceFeatures f = privatesAndLists();
  f.allocs = true;
  f.atomics = true;
  f.tryfail = true;
  f.rwlocks = true;
  Mix m{f, 200 * modelScale(), 30, 6};
  EXPECT_GT(runMix(m, 33000), 40);
}

TEST(StreamingReduction, WaitsBarriersSemaphores) {
  TraceFeatures f = privatesAndLists();
  f.condvars = true;
  f.barriers = true;
  f.semaphores = true;
  Mix m{f, 200 * modelScale(), 30, 6};
  EXPECT_GT(runMix(m, 34000), 40);
}

TEST(StreamingReduction, HiddenWritesRenamed) {
  // Names `x~k` come from the loads, which see all of an address's
  // accesses; the last load keeps only some.
  Mix m{privatesAndLists(), 300 * modelScale(), 40, 3};
  m.hideEvery = 3;
  EXPECT_GT(runMix(m, 35000), 150);
}

TEST(StreamingReduction, AllThreadsInOneLoad) {
  Mix m{privatesAndLists(), 200 * modelScale(), 40, 2};
  m.loadEvents = 0;
  EXPECT_GT(runMix(m, 36000), 120);
}
