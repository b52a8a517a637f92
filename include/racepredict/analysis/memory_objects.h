//===- analysis/memory_objects.h - Which allocation an access belongs to --===//
//
// Memory is reused: an address freed (free, delete, munmap) and allocated
// again (malloc, mmap, a new stack frame) holds a new object, and accesses
// to the old and the new one never race (docs/semantics.md, "Objects").
// An `alloc a n` covers every location whose address lies in [a, a+n):
// recorded traces name memory outside global variables by its address
// (trace::locationAddress); a location without an address (a variable, a
// hand-written name) is covered by the allocs of itself only.
//
// The generation of a location at an event is the number of allocations
// covering it before the event (counting those the location was touched in
// afterwards); two touches of a location are in the same object iff their
// generations are equal. A free touches every location in its block with
// the object's generation: it ends that object, and counts as a write of
// it for races (a free racing with an access is a use-after-free).
//
// One pass in trace order over the allocations in an interval map, newest
// over older: each touch looks up the allocation covering it. Per location,
// only the allocations it was touched under are stored.
//
#pragma once

#include "racepredict/analysis/trace_index.h"

#include <vector>

namespace racepredict::analysis {

class MemoryObjects {
public:
  explicit MemoryObjects(const trace::Trace &t);

  /// The generation of location `loc` at event `e` (an access of it, or a
  /// free covering it).
  uint32_t generation(SymId loc, EventId e) const;
  /// The locations free `f` ends (those its block covers), ascending.
  Span<uint32_t> freedBy(EventId f) const;
  /// The frees whose block covers `loc`, in trace order.
  EventSpan freesOf(SymId loc) const { return freesOf_.of(loc); }
  /// Whether free `f` ends the object access `x` is in: x's location is in
  /// f's block, in the same generation. (Threads are the caller's matter.)
  bool ends(EventId f, EventId x) const;

private:
  const trace::Trace &t_;
  /// Per location: the allocations it was touched under, ascending.
  Csr touchedUnder_;
  /// Per free (index into frees_): the locations it ends.
  std::vector<EventId> frees_;
  Csr freed_;
  Csr freesOf_;
};

} // namespace racepredict::analysis
