//===- analysis/local_reduction.h - Drop what only one thread touches ----===//
//
// Issue 17: in real programs most accesses are to memory only one thread
// touches (zlib's deflate state in pigz: 118M events, nearly all of them
// private). Such a location can never race, and in every schedule of the
// maximal causal model its reads see the writes of their own thread's
// prefix, so the values they read are fixed by that prefix (Huang et al.,
// PLDI 2014, §3). The race query is decided on a reduced trace without them,
// with the dependences that went through them rewritten to the reads they
// came from; docs/slicing.md ("Thread-local locations") gives the argument.
// Findings are mapped back: event ids name the original trace's events, and
// witnesses get each thread's dropped events back in program order.
//
#pragma once

#include "racepredict/analysis/schedule_checker.h"
#include "racepredict/analysis/trace_index.h"
#include "racepredict/trace/trace.h"

#include <vector>

namespace racepredict::analysis {

struct LocalReductionStats {
  size_t events = 0;          ///< of the original trace
  size_t keptEvents = 0;      ///< of the reduced trace
  size_t localLocations = 0;  ///< locations one thread alone touches
  size_t droppedAccesses = 0; ///< their reads and writes left out
  size_t droppedBranches = 0; ///< branches said again by a later one
  /// Local reads and writes kept to carry a value a listed dependence
  /// needs (a read whose writer depends on all earlier reads).
  size_t keptLocalAccesses = 0;
  /// The two above per thread (by ThreadId): a load of the streaming
  /// reduction (streaming_reduction.h) counts its own threads' only.
  std::vector<size_t> localLocationsOf, keptLocalAccessesOf;
};

struct LocalReduction {
  trace::Trace trace;            ///< the reduced trace
  std::vector<EventId> original; ///< reduced event id -> original event id
  LocalReductionStats stats;
};

/// The reduced trace of a consistent trace `t` (trace::validateTrace finds
/// no violation): every event but the reads and writes of thread-local
/// locations and the branches a later branch says again. Race verdicts on
/// it are those on `t`, event for event through `original`. Above
/// `maxListed` reads, what a local value came from is not carried as a list:
/// one read of it stays in the trace, with its writer (bounds the memory of
/// long chains through private memory). Locations `shared` marks (if
/// given) are kept as if several threads used them.
LocalReduction reduceThreadLocal(const trace::Trace &t, size_t maxListed = 16,
                                 const std::vector<bool> *shared = nullptr);
/// The same, with `t`'s tables (names, sources, initial values, rmw values,
/// custom arguments, call-stack nodes, the stop) moved into the reduced
/// trace instead of copied: on pigz + zlib the copy took ~550 MB, most of
/// it the 3.6M location names (docs/thread_local.md, "Memory and time"). `t`
/// keeps its events but has no names until giveBackTables.
LocalReduction
reduceThreadLocalLending(trace::Trace &t, size_t maxListed = 16,
                         const std::vector<bool> *shared = nullptr);
/// Moves the tables reduceThreadLocalLending lent to `r.trace` back to `t`
/// (`r.trace` keeps its events, without tables).
void giveBackTables(LocalReduction &r, trace::Trace &t);

/// A trace with t's names, sources, init values, rmw reads, custom
/// arguments, stacks and stop, and no events: what a trace derived from t
/// (this reduction, the pieces of accesses of analysis/access_pieces.h)
/// starts from.
trace::Trace tablesOf(const trace::Trace &t);

/// A schedule of the reduced trace as a schedule of the original one
/// (`full` indexes it): each step is preceded by the events of its thread
/// that the reduction dropped before it; the last `tail` steps (the racing
/// pair) stay together at the end, their dropped predecessors before them.
std::vector<Step> expandSchedule(const TraceIndex &full,
                                 const LocalReduction &r,
                                 const std::vector<Step> &steps, size_t tail);

} // namespace racepredict::analysis
