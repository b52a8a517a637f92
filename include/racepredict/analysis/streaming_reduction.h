//===- analysis/streaming_reduction.h - Reduce a trace while loading it --===//
//
// Issue 17: pigz with instrumented zlib records 118M events; the whole
// trace takes 5 GB in memory, the reduced one (analysis/local_reduction.h)
// ~1.5M events. Here the reduction is computed without the whole trace ever
// in memory (docs/thread_local.md, "The streaming load"):
//  1. one pass over the file stores nothing and notes, per address, which
//     threads access it and how wide; addresses whose byte ranges overlap
//     are one unit, and a unit several threads (or an atomic) touch is
//     *shared*;
//  2. the threads are loaded a few at a time (a RecordFilter), each load
//     with every access of a shared unit and every free: all that decides
//     which of their locations are local, how each address is renamed after
//     hidden writes, and which accesses are cut into pieces. The reduction
//     of a load is the whole trace's for its threads, since what it does to
//     a thread's events depends on that thread's events and those owners
//     alone;
//  3. a last load keeps the kept events only, with the dependence lists and
//     the location names the loads of step 2 gave them.
// The result is the reduced trace reduceThreadLocal gives on the whole
// trace, event for event, with the same location names (their ids may
// differ: only the kept events' names are interned) and `original` the
// whole trace's ids. Memory: the largest load of step 2.
//
#pragma once

#include "racepredict/analysis/local_reduction.h"

#include <optional>
#include <string>

namespace racepredict::analysis {

struct StreamingLoadStats {
  size_t passes = 0;      ///< reads of the file
  size_t loads = 0;       ///< loads of step 2
  size_t largestLoad = 0; ///< events of the largest one
  size_t sharedAddresses = 0;
};

/// The reduced trace of the binary trace at `path` (format v4 and later),
/// computed as described above; nullopt with the reason in *why when the
/// file cannot be read so (another format or version, a read error, seqs
/// far beyond the count of events, a file that changes between two
/// passes): the caller then reads the whole trace, whose reader reports
/// what is wrong with the file. The reduced
/// trace is not validated here.
/// A load of step 2 holds up to `loadEvents` events of its threads (0: as
/// many as the largest thread has, at least 8M), or one thread if it has
/// more.
std::optional<LocalReduction>
reduceWhileLoading(const std::string &path, size_t maxListed, std::string *why,
                   StreamingLoadStats *stats = nullptr, size_t loadEvents = 0);

} // namespace racepredict::analysis
