//===- test/model/index_reference_test.cpp - Compact indexes = brute force ===//
//
// Issue 7 made the trace index and the must-happen-before clocks compact
// (CSR arrays, nesting chains, clocks stored only where they change). On
// random traces every query must equal its definition computed the slow
// way: a dense vector clock per event, and linear scans of the trace.
//
#include "random_trace.h"

#include "racepredict/analysis/mhb.h"
#include "racepredict/trace/text_format.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>

using namespace racepredict;
using namespace racepredict::testsupport;
using analysis::EventId;
using analysis::kNone;
using trace::EventKind;

namespace {

analysis::TraceIndex *indexOf(const std::string &text, trace::Trace *t) {
  std::istringstream in(text);
  auto p = trace::parseTextTrace(in, "random.rpt.txt");
  EXPECT_TRUE(static_cast<bool>(p)) << text;
  *t = std::move(*p);
  return new analysis::TraceIndex(*t);
}

/// Must-happen-before clocks, one full vector per event, by definition.
std::vector<std::vector<uint32_t>>
denseClocks(const analysis::TraceIndex &idx) {
  const auto &ev = idx.trace().events;
  size_t nt = idx.numThreads();
  std::vector<std::vector<uint32_t>> c(ev.size(), std::vector<uint32_t>(nt, 0));
  auto join = [&](std::vector<uint32_t> &d, EventId s) {
    for (size_t i = 0; i < nt; ++i)
      d[i] = std::max(d[i], c[s][i]);
  };
  for (EventId e = 0; e < ev.size(); ++e) {
    auto &d = c[e];
    EventId prev = idx.poPrev(e);
    if (prev != kNone)
      join(d, prev);
    else if (EventId f = idx.forkOf(ev[e].thread); f != kNone && f < e)
      join(d, f);
    switch (ev[e].kind) {
    case EventKind::Join: {
      const auto &ch = idx.threadEvents(ev[e].obj);
      if (!ch.empty() && ch.back() < e)
        join(d, ch.back());
      break;
    }
    case EventKind::Wait:
      if (ev[e].extra != kNone && ev[e].extra < e)
        join(d, ev[e].extra);
      break;
    case EventKind::Signal:
    case EventKind::Broadcast:
      for (EventId w = 0; w < ev.size(); ++w)
        if (ev[w].kind == EventKind::Wait && ev[w].extra == e)
          if (EventId p = idx.poPrev(w); p != kNone && p < e)
            join(d, p);
      break;
    case EventKind::Branch:
      // Every earlier read this branch depends on, forced writers first.
      for (EventId r = 0; r < e; ++r) {
        if (ev[r].thread != ev[e].thread || !trace::readsValue(ev[r].kind))
          continue;
        if (idx.trace().hasDeps(ev[e])) {
          auto [b, end] = idx.trace().deps(ev[e]);
          if (std::find(b, end, r) == end)
            continue;
        }
        EventId w = analysis::MustHappenBefore::forcedWriter(idx, r);
        if (w != kNone)
          join(d, w);
      }
      break;
    case EventKind::Barrier:
      for (EventId m : idx.barrierGenerations()[idx.barrierGeneration(e)])
        if (EventId mp = idx.poPrev(m); m != e && mp != kNone && mp < e)
          join(d, mp);
      break;
    default:
      break;
    }
    d[ev[e].thread] = idx.posInThread(e) + 1;
  }
  return c;
}

/// The stored clocks' entries and firstSuccessorIn against denseClocks.
std::string clockMismatches(const analysis::TraceIndex &idx,
                            const analysis::MustHappenBefore &mhb) {
  auto dense = denseClocks(idx);
  const auto &ev = idx.trace().events;
  std::string why;
  for (EventId e = 0; e < ev.size(); ++e)
    for (analysis::ThreadId u = 0; u < idx.numThreads(); ++u) {
      if (mhb.entry(e, u) != dense[e][u])
        why += "clock entry (" + std::to_string(e) + "," + std::to_string(u) +
               ")\n";
      // firstSuccessorIn: the first event of u whose clock has seen e.
      EventId want = kNone;
      for (EventId x : idx.threadEvents(u))
        if (x != e && dense[x][ev[e].thread] > idx.posInThread(e)) {
          want = x;
          break;
        }
      if (mhb.firstSuccessorIn(u, e) != want)
        why += "firstSuccessorIn(" + std::to_string(u) + "," +
               std::to_string(e) + ")\n";
    }
  return why;
}

} // namespace

TEST(CompactIndexes, EqualTheirDefinitions) {
  TraceFeatures f;
  f.rwlocks = f.tryfail = f.atomics = f.precise = f.condvars = f.barriers =
      f.semaphores = f.allocs = f.oddLocks = true;
  RandomTraceOptions o;
  o.features = f;
  o.minEvents = 10;
  o.maxEvents = 40;
  int failures = 0;
  for (int i = 0; i < 400 && failures < 3; ++i) {
    uint64_t seed = 51000000 + static_cast<uint64_t>(i);
    std::string text = randomTrace(seed, o).text;
    trace::Trace t;
    std::unique_ptr<analysis::TraceIndex> idx(indexOf(text, &t));
    analysis::MhbOptions explicitOnly;
    explicitOnly.derived = false;
    analysis::MustHappenBefore mhb(*idx, explicitOnly);
    const auto &ev = t.events;
    std::string why = clockMismatches(*idx, mhb);
    for (EventId e = 0; e < ev.size(); ++e) {
      // Locksets: sections strictly around e in its thread.
      std::vector<uint32_t> holding;
      for (uint32_t s = 0; s < idx->sections().size(); ++s) {
        const auto &ls = idx->sections()[s];
        if (ls.thread == ev[e].thread && ls.acquire < e &&
            (ls.release == kNone || e < ls.release))
          holding.push_back(s);
      }
      if (idx->sectionsHolding(e) != holding)
        why += "sectionsHolding(" + std::to_string(e) + ")\n";
      if (trace::isAccess(ev[e].kind)) {
        // The distinct objects (the latest alloc of the location before a
        // touch) its location was touched under (accessed, or freed) up to
        // e (memory_objects.h; random traces name locations, no addresses).
        std::set<EventId> objects;
        EventId object = kNone;
        for (EventId x = 0; x <= e; ++x) {
          if (ev[x].obj != ev[e].obj)
            continue;
          if (ev[x].kind == EventKind::Alloc)
            object = x;
          else if ((trace::isAccess(ev[x].kind) ||
                    ev[x].kind == EventKind::Free) &&
                   object != kNone)
            objects.insert(object);
        }
        if (idx->allocGeneration(e) != objects.size())
          why += "allocGeneration(" + std::to_string(e) + ")\n";
      }
      if (trace::isNotify(ev[e].kind)) {
        std::vector<EventId> woken;
        for (EventId w = 0; w < ev.size(); ++w)
          if (ev[w].kind == EventKind::Wait && ev[w].extra == e)
            woken.push_back(w);
        if (idx->wokenBy(e).vec() != woken)
          why += "wokenBy(" + std::to_string(e) + ")\n";
      }
    }
    // Writes per (location, value) and per (location, thread).
    for (EventId w = 0; w < ev.size(); ++w) {
      if (!trace::writesValue(ev[w].kind))
        continue;
      auto byValue = idx->writesOfValue(ev[w].obj, ev[w].value);
      auto byThread = idx->writesOf(ev[w].obj, ev[w].thread);
      size_t same = 0;
      for (EventId x = 0; x < ev.size(); ++x)
        same += trace::writesValue(ev[x].kind) && ev[x].obj == ev[w].obj &&
                ev[x].value == ev[w].value;
      if (std::find(byValue.begin(), byValue.end(), w) == byValue.end() ||
          byValue.size() != same || idx->uniqueValue(w) != (same == 1) ||
          std::find(byThread.begin(), byThread.end(), w) == byThread.end() ||
          !std::is_sorted(byThread.begin(), byThread.end()))
        why += "writes of " + std::to_string(w) + "\n";
    }
    // Sections per (lock, thread) and open sections after n events.
    for (analysis::ThreadId u = 0; u < idx->numThreads(); ++u) {
      for (uint32_t n = 0; n <= idx->threadEvents(u).size(); ++n) {
        EventId bound = n < idx->threadEvents(u).size()
                            ? idx->threadEvents(u)[n]
                            : static_cast<EventId>(ev.size());
        std::vector<uint32_t> want, got = idx->sectionsOpenAfter(u, n);
        for (uint32_t s = 0; s < idx->sections().size(); ++s) {
          const auto &ls = idx->sections()[s];
          if (ls.thread == u && n > 0 &&
              ls.acquire <= idx->threadEvents(u)[n - 1] &&
              (ls.release == kNone || ls.release >= bound))
            want.push_back(s);
        }
        std::sort(got.begin(), got.end());
        if (got != want)
          why += "sectionsOpenAfter(" + std::to_string(u) + "," +
                 std::to_string(n) + ")\n";
      }
      for (uint32_t s = 0; s < idx->sections().size(); ++s) {
        const auto &ls = idx->sections()[s];
        if (ls.thread != u)
          continue;
        auto mine = idx->sectionsOf(ls.lock, u);
        if (std::find(mine.begin(), mine.end(), s) == mine.end())
          why += "sectionsOf(lock, thread)\n";
        if (idx->sectionAcquiredAt(ls.acquire) != s)
          why += "sectionAcquiredAt(" + std::to_string(ls.acquire) + ")\n";
      }
    }
    if (!why.empty() && ++failures)
      ADD_FAILURE() << "seed " << seed << "\n" << text << why;
  }
  EXPECT_EQ(failures, 0);
}

// Issue 21 item 7: the clocks share nodes of a trie over thread ids, one
// level per 16 threads' factor; with up to 40 threads they are two levels
// deep, and forks, joins, waits and barriers join clocks of other depths
// of sharing.
TEST(CompactIndexes, ClocksOfManyThreadsEqualTheirDefinitions) {
  TraceFeatures f;
  f.rwlocks = f.condvars = f.barriers = f.semaphores = f.precise = true;
  RandomTraceOptions o;
  o.features = f;
  o.minEvents = 60;
  o.maxEvents = 200;
  o.maxThreads = 40;
  o.maxLocations = 6;
  int failures = 0;
  size_t most = 0;
  for (int i = 0; i < 120 && failures < 3; ++i) {
    uint64_t seed = 52000000 + static_cast<uint64_t>(i);
    std::string text = randomTrace(seed, o).text;
    trace::Trace t;
    std::unique_ptr<analysis::TraceIndex> idx(indexOf(text, &t));
    most = std::max(most, idx->numThreads());
    analysis::MhbOptions explicitOnly;
    explicitOnly.derived = false;
    analysis::MustHappenBefore mhb(*idx, explicitOnly);
    std::string why = clockMismatches(*idx, mhb);
    if (!why.empty() && ++failures)
      ADD_FAILURE() << "seed " << seed << "\n" << text << why;
  }
  EXPECT_EQ(failures, 0);
  EXPECT_GT(most, 16u); // some tries were deeper than one level
}
