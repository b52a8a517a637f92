//===- trace/record_filter.h - Which records a binary load keeps ---------===//
//
// Issue 17: a trace of 118M events (pigz + instrumented zlib) takes 5 GB
// as a whole, though the races are decided on ~1.5M of them
// (docs/thread_local.md). A RecordFilter lets the binary reader see every
// event record and store only the ones asked for, so that the thread-local
// reduction can be computed load by load, a few threads at a time
// (analysis/streaming_reduction.h), without the whole trace ever in memory.
//
#pragma once

#include "racepredict/trace/event.h"

#include <cstdint>
#include <vector>

namespace racepredict::trace {

/// An event record as the binary reader parsed it, before it is stored:
/// keys are the file's (a location's key is its address).
struct RecordView {
  uint64_t seq = 0;
  uint64_t threadKey = 0;
  EventKind kind = EventKind::Read;
  bool hasObj = false;
  uint64_t objKey = 0; ///< the object's key, if hasObj
  uint64_t size = 0;   ///< an access's size in bytes (0: unknown)
  uint64_t aux = 0;    ///< alloc/free: the block's size; wait: its lock key
};

class RecordFilter {
public:
  virtual ~RecordFilter() = default;
  /// Called for every event record, in file order (binary format v4 and
  /// later only); false leaves it out of the trace. A reference to a record
  /// left out (a wait's notify, a dependence) is dropped as one past the
  /// cut of a truncated file is: the wait is unmatched, the dependence list
  /// falls back to the plain rule.
  virtual bool keep(const RecordView &r) = 0;
  /// For a kept record with a dependence list (a listed branch or write):
  /// true to store `out` (seqs of earlier kept reads of its thread) instead
  /// of the file's list, or no list at all (the plain rule) when *plain.
  virtual bool dependences(uint64_t seq, std::vector<uint64_t> &out,
                           bool *plain) {
    (void)seq, (void)out, (void)plain;
    return false;
  }
  /// For a kept access: which name of its address it goes by, k of `x~k`
  /// (0: `x`), when givesNames; trace/hidden_writes.cpp then takes it
  /// instead of deciding it from the kept accesses' values (which are not
  /// all of the address's accesses).
  virtual uint32_t nameNumber(uint64_t seq) {
    (void)seq;
    return 0;
  }
  bool givesNames = false;
  /// Store the events' call stacks (false: the trace has none).
  bool stacks = true;
  /// How many records keep() will accept, when known: the event vector is
  /// sized once (growing it by doubling holds two copies at once).
  size_t expected = 0;
};

} // namespace racepredict::trace
