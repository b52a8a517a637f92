//===- report/race_groups.cpp - One race per pair of source locations -----===//
#include "racepredict/report/race_groups.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace racepredict::report {

using trace::Event;
using trace::EventId;
using trace::EventKind;

namespace {

/// A source location without the frame it was inlined into.
using LocKey = std::tuple<std::string, uint32_t, uint32_t, std::string>;

bool keyOf(const trace::Trace &t, EventId e, LocKey &k) {
  const trace::SourceLoc &l = t.sources[t.events[e].src];
  if (t.events[e].src == 0 || l.line == 0)
    return false; // no location: nothing to merge it with
  k = {l.file, l.line, l.column, l.function};
  return true;
}

/// Access classes of the conflict rule: plain read/write, atomic
/// read/write (an rmw writes).
int classOf(EventKind k) {
  switch (k) {
  case EventKind::Read:
    return 0;
  case EventKind::Write:
    return 1;
  case EventKind::AtomicRead:
    return 2;
  default:
    return 3;
  }
}

bool conflict(int a, int b) {
  bool writes = (a & 1) || (b & 1);
  bool bothAtomic = a >= 2 && b >= 2;
  return writes && !bothAtomic;
}

} // namespace

void oneRacePerLocationPair(const trace::Trace &t, solver::RaceResult &r) {
  std::set<std::pair<LocKey, LocKey>> seen;
  std::vector<solver::RaceFinding> kept;
  for (auto &f : r.races) {
    LocKey a, b;
    if (keyOf(t, f.first, a) && keyOf(t, f.second, b) &&
        !seen.insert({std::min(a, b), std::max(a, b)}).second)
      continue;
    kept.push_back(std::move(f));
  }
  r.races = std::move(kept);
}

RaceExtent raceExtent(const trace::Trace &t, EventId first, EventId second) {
  RaceExtent x;
  LocKey a, b;
  if (!keyOf(t, first, a) || !keyOf(t, second, b)) {
    x.pairs = 1;
    x.threads = {t.events[first].thread, t.events[second].thread};
    std::sort(x.threads.begin(), x.threads.end());
    return x;
  }
  // Per location (address) and side: access counts per thread and class.
  struct Side {
    std::map<trace::ThreadId, std::array<size_t, 4>> perThread;
    std::array<size_t, 4> total{};
  };
  std::unordered_map<uint32_t, std::pair<Side, Side>> byObj;
  std::map<trace::SrcId, int> srcSide; // 1: a, 2: b, 3: both
  for (trace::SrcId s = 1; s < t.sources.size(); ++s) {
    const trace::SourceLoc &l = t.sources[s];
    if (l.line == 0)
      continue;
    LocKey k{l.file, l.line, l.column, l.function};
    int side = (k == a ? 1 : 0) | (k == b ? 2 : 0);
    if (side)
      srcSide[s] = side;
  }
  for (EventId e = 0; e < t.events.size(); ++e) {
    const Event &ev = t.events[e];
    if (!trace::isAccess(ev.kind))
      continue;
    auto it = srcSide.find(ev.src);
    if (it == srcSide.end())
      continue;
    auto &sides = byObj[ev.obj];
    int c = classOf(ev.kind);
    if (it->second & 1) {
      ++sides.first.perThread[ev.thread][c];
      ++sides.first.total[c];
    }
    if (it->second & 2) {
      ++sides.second.perThread[ev.thread][c];
      ++sides.second.total[c];
    }
  }
  std::set<trace::ThreadId> threads;
  for (const auto &[obj, sides] : byObj) {
    const Side &p = sides.first, &q = sides.second;
    size_t n = 0;
    for (int ca = 0; ca < 4; ++ca)
      for (int cb = 0; cb < 4; ++cb) {
        if (!conflict(ca, cb))
          continue;
        // All pairs minus those of one thread with itself.
        size_t all = p.total[ca] * q.total[cb];
        for (const auto &[u, counts] : p.perThread) {
          auto o = q.perThread.find(u);
          if (o != q.perThread.end())
            all -= counts[ca] * o->second[cb];
        }
        n += all;
      }
    if (a == b)
      n /= 2; // each unordered pair was counted from both ends
    if (!n)
      continue;
    x.pairs += n;
    for (const Side *s : {&p, &q})
      for (const auto &[u, counts] : s->perThread)
        threads.insert(u);
  }
  x.threads.assign(threads.begin(), threads.end());
  // By name, t2 before t10: thread ids number threads in the order the
  // recording met them, which differs from run to run.
  std::sort(x.threads.begin(), x.threads.end(),
            [&](trace::ThreadId p, trace::ThreadId q) {
              const std::string &a = t.threadName(p), &b = t.threadName(q);
              return a.size() != b.size() ? a.size() < b.size() : a < b;
            });
  return x;
}

std::string extentText(const trace::Trace &t, const RaceExtent &x) {
  std::string s = std::to_string(x.pairs) + " conflicting event pair" +
                  (x.pairs == 1 ? "" : "s") + " at these two locations, " +
                  "thread" + (x.threads.size() == 1 ? " " : "s ");
  for (size_t i = 0; i < x.threads.size(); ++i)
    s += (i ? ", " : "") + t.threadName(x.threads[i]);
  return s;
}

} // namespace racepredict::report
