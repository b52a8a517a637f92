//===- analysis/clock_store.h - Persistent vector clocks sharing nodes ----===//
//
// Private to mhb*.cpp. Issue 21 item 7: 20,000 threads with one write each
// took 5.6 GB because every stored clock, and every thread's current clock,
// had one entry per thread, although each of these threads knows only main
// and itself. Here a clock is a radix trie over thread ids (fan-out W, the
// same depth for every clock) whose nodes are never changed once built: a
// join copies only the paths to the entries that grow and shares every
// other node with its inputs (path copying, as persistent vectors do).
// Node 0 is the all-zero subtree at every level, so a clock that knows few
// threads is a few paths, and a join of two clocks that share nodes (a
// child starts from its creator's clock; main joins a child that knows
// what main knew at the fork) costs what differs between them, the goal of
// tree clocks (Mathur, Pavlogiannis, Tunç, Viswanathan, ASPLOS 2022)
// without their re-rooting. With at most W threads a clock is one leaf of
// one entry per thread: the dense clock it replaces.
//
#pragma once

#include "racepredict/analysis/trace_index.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace racepredict::analysis {

class ClockStore {
public:
  /// A clock: the index of its root node; 0 is the all-zero clock.
  using Ref = uint32_t;
  /// Entries listed by ascending thread.
  using Entries = std::vector<std::pair<ThreadId, uint32_t>>;

  /// maxWidth: a power of two, at most 64.
  explicit ClockStore(size_t threads, unsigned maxWidth = 16);

  uint32_t get(Ref c, ThreadId u) const {
    for (unsigned l = depth_; l-- > 0 && c != 0;)
      c = slots_[size_t{c} * w_ + slotOf(u, l)];
    return c;
  }
  /// The entry-wise maximum of a and b, where b's entry of `over` (unless
  /// kNone) reads as `overValue` (an event's own entry, which its thread's
  /// stored clock does not hold) and a's entry of `keep` (unless kNone)
  /// stays as it is. Returns a itself if no entry of a grew.
  Ref join(Ref a, Ref b, ThreadId keep, ThreadId over = kNone,
           uint32_t overValue = 0);
  /// Raises a's entries to those of `e` (not `keep`'s); a itself if none
  /// grew.
  Ref raise(Ref a, const Entries &e, ThreadId keep);
  /// Sets a's entries to those of `e`.
  Ref assign(Ref a, const Entries &e);
  /// The least thread u >= from whose entries in a and b differ, or kNone:
  /// subtrees the two share are skipped whole.
  ThreadId firstDifference(Ref a, Ref b, ThreadId from) const {
    return diffRec(a, b, depth_ - 1, 0, from);
  }
  /// Calls f(thread, value) for the non-zero entries, by ascending thread.
  template <typename F> void forEach(Ref c, F f) const {
    forEachRec(c, depth_ - 1, 0, f);
  }
  /// Per node: the sum of the entries below it (nodes are built after
  /// their children, so one sweep computes them).
  std::vector<uint64_t> sums() const;
  size_t nodes() const { return level_.size(); }
  size_t bytes() const {
    return slots_.capacity() * sizeof(uint32_t) + level_.capacity();
  }

private:
  /// Threads covered by a node at `level` (0: leaves).
  uint64_t cover(unsigned level) const { return pow_[level] * w_; }
  unsigned slotOf(ThreadId u, unsigned level) const {
    return (u >> (shift_ * level)) & mask_;
  }
  bool inside(ThreadId u, unsigned level, uint64_t base) const {
    return u != kNone && u >= base && u < base + cover(level);
  }
  Ref make(const uint32_t *slots, unsigned level);
  Ref joinRec(Ref a, Ref b, unsigned level, uint64_t base, ThreadId keep,
              ThreadId over, uint32_t overValue);
  Ref applyRec(Ref a, const std::pair<ThreadId, uint32_t> *lo,
               const std::pair<ThreadId, uint32_t> *hi, unsigned level,
               uint64_t base, ThreadId keep, bool raiseOnly);
  ThreadId diffRec(Ref a, Ref b, unsigned level, uint64_t base,
                   ThreadId from) const;
  template <typename F>
  void forEachRec(Ref c, unsigned level, uint64_t base, F &f) const {
    if (c == 0)
      return;
    const uint32_t *s = &slots_[size_t{c} * w_];
    for (unsigned i = 0; i < w_; ++i) {
      if (s[i] == 0)
        continue;
      if (level == 0)
        f(static_cast<ThreadId>(base + i), s[i]);
      else
        forEachRec(s[i], level - 1, base + i * pow_[level], f);
    }
  }

  /// W is the thread count if it fits one leaf, else a power of two:
  /// slots by shifts, no division.
  unsigned w_ = 1, depth_ = 1, shift_ = 0;
  uint32_t mask_ = ~0u;
  /// pow_[l] = W^l: the threads below one slot of a node at level l.
  std::vector<uint64_t> pow_;
  /// Node i's W slots at [i·W, (i+1)·W): children, or entries in leaves.
  std::vector<uint32_t> slots_;
  std::vector<uint8_t> level_;
};

} // namespace racepredict::analysis
