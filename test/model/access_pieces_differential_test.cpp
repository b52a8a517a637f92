//===- test/model/access_pieces_differential_test.cpp - Pieces vs bytes ---===//
//
// Accesses of different sizes to the same bytes (analysis/access_pieces.h)
// against a brute-force oracle of the recorded accesses: random traces of
// 1-, 2-, 4- and 8-byte reads, writes and atomics of one 8-byte word, with
// values from a byte memory, locks and branches. The oracle explores every
// prefix schedule of the trace with pieces in which each recorded access
// runs all its pieces at one step (an observer of the enumerator, which
// knows nothing of the encoding): (a, b) race iff a schedule of whole
// accesses leaves both next. The predictor, on the pieces, must report only
// oracle races, each witness whole accesses that pass the schedule checker
// on the pieces, and every oracle race as a race or unknown.
//
#include "enumerator.h"
#include "random_trace.h"

#include "racepredict/analysis/access_pieces.h"
#include "racepredict/solver/piece_races.h"
#include "racepredict/trace/text_format.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>

using namespace racepredict;
using namespace racepredict::testsupport;
using analysis::AccessPieces;
using trace::kNone;
using trace::ThreadId;

namespace {

struct Rng {
  uint64_t s;
  uint32_t next() {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<uint32_t>(s >> 33);
  }
  uint32_t below(uint32_t n) { return next() % n; }
};

struct SizedTrace {
  std::string text;
  std::vector<uint8_t> sizes;
};

int64_t signExtend(uint64_t raw, unsigned size) {
  if (size == 8)
    return static_cast<int64_t>(raw);
  uint64_t sign = uint64_t{1} << (8 * size - 1);
  raw &= (uint64_t{1} << (8 * size)) - 1;
  return static_cast<int64_t>((raw ^ sign) - sign);
}

/// Threads t1, t2 (forked by t0) run random programs of accesses to the
/// word at 0x100 (aligned, 1-8 bytes), a lock `m` and branches, in a random
/// interleaving; reads record what a byte memory holds.
SizedTrace randomSizedTrace(uint64_t seed) {
  Rng r{seed * 2654435761u + 17};
  uint8_t mem[8] = {};
  SizedTrace out;
  auto line = [&](const std::string &l, uint8_t size) {
    out.text += l + "\n";
    out.sizes.push_back(size);
  };
  line("t0 fork t1", 0);
  line("t0 fork t2", 0);
  int left[3] = {0, 3 + int(r.below(4)), 3 + int(r.below(4))};
  bool holds[3] = {false, false, false};
  ThreadId holder = kNone;
  while (left[1] + left[2] > 0) {
    ThreadId t = 1 + r.below(2);
    if (!left[t])
      t = 3 - t;
    std::string th = "t" + std::to_string(t);
    uint32_t what = r.below(10);
    if (holds[t] && (what < 3 || left[t] == 1)) {
      line(th + " rel m", 0);
      holds[t] = false;
      holder = kNone;
      continue;
    }
    if (!holds[t] && what < 2 && holder == kNone && left[t] > 1) {
      line(th + " acq m", 0);
      holds[t] = true;
      holder = t;
      continue;
    }
    --left[t];
    unsigned size = 1u << r.below(4);
    unsigned at = r.below(8 / size) * size;
    std::string loc = " 0x" + [&] {
      char b[8];
      std::snprintf(b, sizeof b, "%x", 0x100 + at);
      return std::string(b);
    }();
    uint64_t old = 0;
    for (unsigned k = 0; k < size; ++k)
      old |= uint64_t{mem[at + k]} << (8 * k);
    uint32_t kind = r.below(10);
    if (kind < 4) { // a read, a branch on it
      line(th + (kind == 0 ? " ard" : " rd") + loc + " " +
               std::to_string(signExtend(old, size)),
           uint8_t(size));
      if (r.below(2))
        line(th + " br", 0);
      continue;
    }
    uint64_t v = 0;
    for (unsigned k = 0; k < size; ++k)
      v |= uint64_t{r.below(2)} << (8 * k);
    for (unsigned k = 0; k < size; ++k)
      mem[at + k] = static_cast<uint8_t>(v >> (8 * k));
    std::string nv = std::to_string(signExtend(v, size));
    if (kind == 4)
      line(th + " armw" + loc + " " + nv + " " +
               std::to_string(signExtend(old, size)),
           uint8_t(size));
    else
      line(th + (kind == 5 ? " awr" : " wr") + loc + " " + nv, uint8_t(size));
  }
  for (ThreadId t = 1; t <= 2; ++t)
    if (holds[t])
      line("t" + std::to_string(t) + " rel m", 0);
  return out;
}

/// Accepts a schedule of whole accesses (each recorded access's pieces
/// consecutive) that ends with the pieces of a before x, of b before y,
/// then x and y: a and b were both next.
class WholeAccesses : public ScheduleObserver {
public:
  WholeAccesses(const AccessPieces &p, EventId a, EventId b, EventId x,
                EventId y)
      : p_(p), a_(a), b_(b), n_(static_cast<uint32_t>(p.trace.events.size())) {
    for (EventId i = p.first[a]; i < x; ++i)
      tail_.push_back(i);
    for (EventId j = p.first[b]; j < y; ++j)
      tail_.push_back(j);
    tail_.push_back(x);
    tail_.push_back(y);
  }
  uint32_t initial() const override { return 0; }
  // 0: between accesses; 1 + i: piece i comes next; n + 1 + k: k steps
  // of the tail done.
  uint32_t step(uint32_t st, const Step &s) const override {
    if (st > n_) {
      size_t k = st - n_ - 1;
      return k < tail_.size() && s.event == tail_[k] && !s.half ? st + 1
                                                                : kDead;
    }
    if (st != 0 && (s.event != st - 1 || s.half))
      return kDead;
    EventId e = p_.original[s.event];
    if (st == 0 && (e == a_ || e == b_))
      return s.event == tail_[0] && !s.half ? n_ + 2 : kDead;
    if (st == 0 && s.event != p_.first[e])
      return kDead;
    return s.event + 1 < p_.first[e + 1] ? s.event + 2 : 0;
  }
  bool accepting(uint32_t st) const override {
    return st == n_ + 1 + tail_.size();
  }

private:
  const AccessPieces &p_;
  EventId a_, b_;
  uint32_t n_;
  std::vector<EventId> tail_;
};

using Pair = std::pair<EventId, EventId>;

/// The oracle's races among the recorded accesses of `t`.
std::set<Pair> oracleRaces(const trace::Trace &t, const AccessPieces &p,
                           const analysis::TraceIndex &idx, bool *truncated,
                           int *candidates) {
  std::set<Pair> out;
  for (EventId a = 0; a < t.events.size(); ++a)
    for (EventId b = a + 1; b < t.events.size(); ++b) {
      const trace::Event &ea = t.events[a], &eb = t.events[b];
      if (!trace::isAccess(ea.kind) || !trace::isAccess(eb.kind) ||
          ea.thread == eb.thread ||
          (trace::isAtomic(ea.kind) && trace::isAtomic(eb.kind)) ||
          (!trace::writesValue(ea.kind) && !trace::writesValue(eb.kind)))
        continue;
      EventId x = kNone, y = kNone;
      for (EventId i = p.first[a]; i < p.first[a + 1] && x == kNone; ++i)
        for (EventId j = p.first[b]; j < p.first[b + 1]; ++j)
          if (p.trace.events[i].obj == p.trace.events[j].obj) {
            x = i;
            y = j;
            break;
          }
      if (x == kNone)
        continue;
      ++*candidates;
      bool cut = false;
      if (findObservedSchedule(idx, WholeAccesses(p, a, b, x, y), 200000, &cut))
        out.insert({a, b});
      *truncated = *truncated || cut;
    }
  return out;
}

} // namespace

TEST(AccessPiecesDifferential, RacesOfWholeAccessesOnRandomTraces) {
  int split = 0, oracleTotal = 0, unknownTotal = 0, candidates = 0;
  uint64_t base = modelSeedBase(0);
  for (uint64_t seed = base; seed < base + 120 * uint64_t(modelScale());
       ++seed) {
    SizedTrace st = randomSizedTrace(seed);
    std::istringstream in(st.text);
    auto t = trace::parseTextTrace(in, "sized.rpt.txt");
    ASSERT_TRUE(static_cast<bool>(t)) << t.error().message << "\n" << st.text;
    for (size_t i = 0; i < st.sizes.size(); ++i)
      t->events[i].size = st.sizes[i];
    auto p = analysis::splitOverlappingAccesses(*t);
    if (!p)
      continue;
    ++split;
    analysis::TraceIndex idx(p->trace);
    bool truncated = false;
    std::set<Pair> oracle = oracleRaces(*t, *p, idx, &truncated, &candidates);
    if (truncated)
      continue;
    solver::RaceOptions o;
    o.allPairs = true;
    solver::RaceResult r = solver::predictRacesInPieces(*t, o);
    std::set<Pair> found, unknown;
    for (const solver::RaceFinding &f : r.races) {
      found.insert({f.first, f.second});
      std::vector<Step> w = f.schedule.steps();
      ASSERT_GE(w.size(), 2u);
      EXPECT_EQ(analysis::checkRecordedRace(*p, idx, {w.begin(), w.end() - 2},
                                            w[w.size() - 2].event,
                                            w.back().event),
                std::nullopt)
          << "seed " << seed << "\n"
          << st.text;
    }
    for (const solver::UnknownPair &u : r.unknowns)
      unknown.insert({u.first, u.second});
    for (const Pair &f : found)
      EXPECT_TRUE(oracle.count(f))
          << "seed " << seed << ": (" << f.first << ", " << f.second
          << ") is no race of whole accesses\n"
          << st.text;
    for (const Pair &f : oracle)
      EXPECT_TRUE(found.count(f) || unknown.count(f))
          << "seed " << seed << ": race (" << f.first << ", " << f.second
          << ") lost\n"
          << st.text;
    oracleTotal += static_cast<int>(oracle.size());
    unknownTotal += static_cast<int>(unknown.size());
  }
  // The generator must exercise the split with pairs that race and pairs
  // that do not, and the pieces must decide nearly every race (an unknown
  // is a pair whose witnesses all tore an access).
  EXPECT_GE(split, 60);
  EXPECT_GE(oracleTotal, 60);
  EXPECT_GE(candidates - oracleTotal, 60);
  EXPECT_LE(unknownTotal * 20, oracleTotal);
  std::printf("%d traces split, %d conflicting pairs, %d races, %d unknown\n",
              split, candidates, oracleTotal, unknownTotal);
}
