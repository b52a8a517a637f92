//===- analysis/forced_writers.h - "No race" from forced writers ----------===//
//
// A polynomial proof that a candidate has no witness, tried before the
// solver. Every witness σ of (a, b) runs the prefixes of a's and b's threads
// (and, transitively, forks, joined threads, a wait's notify, channel
// predecessors, the arrivals a barrier or a notify needs); each branch it
// runs needs the reads it depends on to be concrete (docs/semantics.md: a
// plain branch every earlier read of its thread, a precise one its listed
// reads), and a concrete read of value v needs a value-concrete write of v
// to its location before it (or the initial value). When a read has no
// write of its value that σ may run — a and b stop their threads, and a
// thread runs in program order — and no initial value to see, σ cannot
// exist; when it has exactly one, that write and the reads its value
// depends on are needed too. Only necessary conditions of the schedule
// checker's semantics are used, so a refuted pair has no witness the
// checker would accept: the solver's verdict, without the solver. In the
// generated `app` shape (lock-protected counters, each value written once)
// this decides the pairs whose reader needs a counter value that only the
// other racing thread writes, after its racing access.
//
#pragma once

#include "racepredict/analysis/trace_index.h"

#include <unordered_map>
#include <vector>

namespace racepredict::analysis {

class ForcedWriterRefuter {
public:
  explicit ForcedWriterRefuter(const TraceIndex &idx);

  /// True if (a, b) has no witness: some read the witness needs concrete
  /// has no write of its value left. Thread-safe.
  bool refutes(EventId a, EventId b) const;

private:
  struct State;
  /// The writes of `value` to `loc`, in trace order.
  const std::vector<EventId> *writesOf(SymId loc, int64_t value) const;

  const TraceIndex &idx_;
  std::unordered_map<SymId, std::unordered_map<int64_t, std::vector<EventId>>>
      writes_;
};

} // namespace racepredict::analysis
