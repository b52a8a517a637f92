//===- analysis/mhb_internal.h - Clock tables and passes of the MHB -------===//
//
// Private to mhb*.cpp. A thread's must-happen-before clock only changes at
// events with an incoming cross-thread edge, so clocks are stored at those
// change points only; an event's clock is the last change point at or
// before it, with its own entry = position + 1.
//
// The clocks are computed by passes over the trace in observed order
// (mhb_pass.cpp). With derived edges (mhb_derived.cpp) a rule may look at
// events the pass has not reached yet; it then sees the previous pass's
// clocks (the observed order before the first pass), and passes repeat
// until nothing changes: docs/slicing.md, "Derived order", says why the
// fixpoint is sound.
//
#pragma once

#include "racepredict/analysis/mhb.h"

#include <vector>

namespace racepredict::analysis {

struct ClockTable {
  size_t nt = 0;
  /// Per thread: positions of its change points, ascending.
  std::vector<std::vector<uint32_t>> pos;
  /// Per thread: nt entries per change point (the own entry is unused).
  std::vector<std::vector<uint32_t>> clk;

  explicit ClockTable(size_t threads = 0)
      : nt(threads), pos(threads), clk(threads) {}

  /// Index of the last change point of thread t at or before position p,
  /// or kNone.
  uint32_t changeAt(ThreadId t, uint32_t p) const;
  /// Entry u of the clock of the event at position p of thread t.
  uint32_t entry(ThreadId t, uint32_t p, ThreadId u) const {
    if (u == t)
      return p + 1;
    uint32_t k = changeAt(t, p);
    return k == kNone ? 0 : clk[t][size_t{k} * nt + u];
  }
  /// The whole clock of that event into out (nt entries).
  void full(ThreadId t, uint32_t p, uint32_t *out) const;
  void append(ThreadId t, uint32_t p, const uint32_t *c) {
    pos[t].push_back(p);
    clk[t].insert(clk[t].end(), c, c + nt);
  }
  /// Σ over events of their clock entries of other threads: passes only
  /// ever lower clocks, so equal sums mean equal tables.
  unsigned __int128 mass(const TraceIndex &idx) const;
  size_t changePoints() const;
};

/// Static facts the derived rules look up (built once for all passes).
struct DerivedFacts {
  explicit DerivedFacts(const TraceIndex &idx);
  /// Per lock: the threads that take it, if more than one (else empty).
  std::vector<std::vector<ThreadId>> lockThreads;
  /// Per semaphore: its waits and its token sources (posts, inits), each
  /// ordered by (thread, index).
  std::vector<std::vector<EventId>> semWaits, semSources;
};

/// One pass over the trace: explicit edges, and the derived ones if
/// `facts` is given. `prev` is the previous pass's table, or null before
/// the first pass (the observed order then stands in for it).
class MhbPass {
public:
  MhbPass(const TraceIndex &idx, const ClockTable *prev,
          const DerivedFacts *facts);
  ClockTable run();

  // For the derived rules (mhb_derived.cpp).
  const TraceIndex &index() const { return idx_; }
  /// The clock of event x: this pass's if it is already reached, else the
  /// previous pass's (or the observed order).
  void clockOf(EventId x, uint32_t *out) const;
  uint32_t entryOf(EventId x, ThreadId u) const;
  /// Joins the clock of x into c (a clock of thread self); true if any
  /// entry grew.
  bool join(uint32_t *c, ThreadId self, EventId x);
  /// Joins an explicit clock (entries of threads other than self).
  bool joinClock(uint32_t *c, ThreadId self, const uint32_t *from);

private:
  void explicitEdges(EventId e, uint32_t *c);
  /// Lowers c to the previous pass's clock of e (never above it).
  void clip(EventId e, uint32_t *c);

  const TraceIndex &idx_;
  const ClockTable *prev_;
  const DerivedFacts *facts_;
  size_t nt_;
  EventId at_ = 0; ///< the event being processed
  ClockTable table_;
  std::vector<uint32_t> scratch_;
  bool changed_ = false;
};

/// The derived rules over one pass (mhb_derived.cpp).
class DerivedRules {
public:
  DerivedRules(MhbPass &pass, const DerivedFacts &facts);
  /// Joins into c (the clock of e, explicit edges done) what the derived
  /// rules say e needs; `changed`: c grew at e so far. Returns whether c
  /// grew here.
  bool apply(EventId e, uint32_t *c, bool changed);

private:
  /// Sections e closes leave the open set, the one it opens joins it;
  /// true if e opened one.
  bool updateOpen(EventId e);
  bool readsFeeding(EventId branch, uint32_t *c);
  bool meetOfWriters(EventId r, std::vector<uint32_t> &meet);
  bool exclusion(EventId e, uint32_t *c);
  bool tokens(EventId wait, uint32_t *c);

  MhbPass &pass_;
  const TraceIndex &idx_;
  const DerivedFacts &facts_;
  size_t nt_;
  /// Per thread: reads since its last plain branch, and recent reads
  /// already joined at a branch (later events inherit them).
  std::vector<std::vector<EventId>> pending_;
  std::vector<std::vector<EventId>> recentDone_;
  /// Per thread: sections of shared locks it holds.
  std::vector<std::vector<uint32_t>> open_;
  std::vector<uint32_t> lastPlain_; ///< per thread: position of it, or 0
  std::vector<uint32_t> buf_, buf2_;
};

} // namespace racepredict::analysis
