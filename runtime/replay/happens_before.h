//===- replay/happens_before.h - Vector clocks of the replayed run --------===//
//
// Confirmation must not assume what it confirms (docs/replay.md): the replay
// runtime keeps its own happens-before over the synchronisation the replayed
// run actually performs (Lamport/Mattern vector clocks, as TSan and
// FastTrack do) and confirms a race only if the two accesses are unordered
// by it. The relation here over-approximates the real happens-before
// (condition variables, barriers and atomics join everything released into
// their object so far): more order can only refuse a confirmation, never
// invent one.
//
// Memory: one row per schedule thread and one per synchronisation object
// (open addressing over its address), from an allocator (mmap in the
// runtime) so that the hooks never call malloc.
//
#pragma once

#include "schedule.h"

#include <stddef.h>
#include <stdint.h>

namespace racepredict::rt {

class VectorClocks {
public:
  /// Call on a zero-initialised object (`VectorClocks vc{};`).
  /// `threads` rows of `threads` entries; `objects` must be a power of two.
  bool init(uint32_t threads, uint32_t objects, SchedAlloc alloc);

  /// C_t[u]: how much of thread u's history thread t has seen.
  uint32_t clock(uint32_t t, uint32_t u) const { return rows_[t * n_ + u]; }
  /// C_t[t], the epoch of t's next event.
  uint32_t epoch(uint32_t t) const { return clock(t, t); }

  /// C_t ⊔= O[key]  (lock acquire, wait return, semwait, atomic load...).
  void acquire(uint32_t t, uint64_t key);
  /// O[key] ⊔= C_t, then C_t[t]++  (release, post, notify, atomic store...).
  void release(uint32_t t, uint64_t key);
  /// Child starts with the parent's clock; the parent moves on.
  void fork(uint32_t parent, uint32_t child);
  /// C_t ⊔= C_child (the child has ended).
  void join(uint32_t t, uint32_t child);

  /// True once the object table filled up: the clocks may then miss order,
  /// so no race may be confirmed any more.
  bool overflowed() const { return overflow_; }

private:
  uint32_t *object(uint64_t key, bool create);
  uint32_t *row(uint32_t t) { return rows_ + static_cast<size_t>(t) * n_; }

  // No member initialisers: the runtime's instance is a zero-initialised
  // global, and a constructor would run after the module constructors
  // that start replay (and wipe its state).
  uint32_t n_;
  uint32_t capacity_;
  uint32_t used_;
  uint32_t *rows_;
  uint64_t *keys_;
  uint32_t *objRows_;
  bool overflow_;
};

/// Applies one recorded event of schedule thread `t` (rp_kind `kind`, sync
/// operands `ops`, access address `addr`) to the clocks. `childSlot` is
/// the schedule thread of a fork/join's child (kNoThread if unknown).
void applyEvent(VectorClocks &vc, uint32_t t, unsigned kind,
                const uint64_t *ops, int n, uint64_t addr, uint32_t childSlot);
/// The first half of a wait (releases the mutex) or a barrier (arrival).
void applyHalf(VectorClocks &vc, uint32_t t, unsigned kind, uint64_t obj);

} // namespace racepredict::rt
