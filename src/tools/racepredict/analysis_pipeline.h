//===- tools/racepredict/analysis_pipeline.h - Load, index, predict -------===//
//
// The analysis half shared by `analyze`, `run` (and `batch`): read a trace,
// index it, predict races and/or deadlocks. Printing stays with the caller.
//
#pragma once

#include "racepredict/analysis/local_reduction.h"
#include "racepredict/analysis/streaming_reduction.h"
#include "racepredict/analysis/trace_index.h"
#include "racepredict/property/property.h"
#include "racepredict/solver/deadlock_predictor.h"
#include "racepredict/solver/property_predictor.h"
#include "racepredict/solver/race_predictor.h"
#include "racepredict/support/error.h"
#include "racepredict/trace/trace_file.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace racepredict::tool {

/// The analysis flags of `analyze` (and every command that analyses).
struct AnalysisOptions {
  std::string trace;
  bool races = false;
  bool deadlocks = false;
  std::vector<std::string> properties; ///< --property files
  bool allPairs = false;
  unsigned timeoutMs = 0;
  uint64_t rlimit = 0;
  /// -j: solver threads; 0 = every core, at most kMaxDefaultJobs (`run`
  /// replays one finding at a time then).
  unsigned jobs = 0;
  std::string dumpSmt2;
  bool noFilters = false;
  bool noFastPath = false;
  bool allowTruncated = false;
  /// Analyse a trace whose values, locks or counts contradict its observed
  /// order (never one that describes no run: docs/inputs.md).
  bool allowInconsistent = false;
  bool candidatesOnly = false;
  uint32_t window = 0;      ///< --window N: RVPredict-style fixed windows
  double budgetSeconds = 0; ///< --budget-s: solving budget of the trace
  bool wholeTrace = false;  ///< --whole-trace: one formula, no slicing
  /// --no-local-reduction: decide races on the whole trace, not on the one
  /// without its thread-local accesses (analysis/local_reduction.h).
  bool noLocalReduction = false;
  /// TSan-style suppressions file (race:, deadlock:, property:); empty = none.
  std::string suppressions;
  /// --progress 1, --no-progress -1, 0: on a terminal, after 2 s.
  int progress = 0;
  /// --streaming-load 1, --no-streaming-load -1, 0: for binary traces of
  /// kStreamingLoadBytes and more. Reduce the trace while loading it, a few
  /// threads at a time (analysis/streaming_reduction.h), when only races
  /// are asked for; the whole trace is read afterwards only to report
  /// findings.
  int streamingLoad = 0;

  /// Races unless only --deadlocks and/or --property were asked for.
  bool doRaces() const { return races || (!deadlocks && properties.empty()); }
  bool doDeadlocks() const { return deadlocks && !candidatesOnly; }
};

/// Solver threads when -j is not given: the machine's cores, up to this.
constexpr unsigned kMaxDefaultJobs = 8;
/// The solver threads `o` asks for (AnalysisOptions::jobs).
unsigned solverJobs(const AnalysisOptions &o);

/// Registers the analysis flags (not the trace argument, not the output
/// flags) on `cmd`, bound to `o`: one definition for every command.
void addAnalysisFlags(CLI::App *cmd, AnalysisOptions &o);

/// From this size on a binary trace is loaded by streaming (--streaming-load
/// is the default): its whole trace would take ~6 GB per GB of file.
constexpr uint64_t kStreamingLoadBytes = uint64_t{256} << 20;

struct AnalysisResult {
  /// Owned on the heap: `index` refers to it. After a streaming load with
  /// no finding and nothing unknown (`streamed`), the reduced trace: its
  /// tables (names, sources, the stop) are what a report of no finding
  /// reads; `reduction.events` counts the whole trace's events.
  std::unique_ptr<trace::Trace> trace;
  bool streamed = false;
  /// The whole trace's index, built only when something needs it
  /// (fullIndex()): races on the reduced trace with no finding to map back
  /// need none, and building it was the peak stage of a 118M-event trace.
  std::unique_ptr<analysis::TraceIndex> index;
  trace::ReadInfo readInfo;
  double loadSeconds = 0;
  solver::RaceResult races;
  /// What the thread-local reduction left out (events = 0: not applied).
  analysis::LocalReductionStats reduction;
  /// The streaming load's passes and loads (passes = 0: not used).
  analysis::StreamingLoadStats streaming;
  /// Per stage (load, validate, reduce, races, index): its wall time and
  /// the peak resident size when it ended (issue 17's per-stage figures).
  struct Stage {
    const char *name;
    double seconds;
    uint64_t peakBytes;
  };
  std::vector<Stage> stages;
  solver::DeadlockResult deadlocks;
  /// The parsed --property files and their predicted violations.
  std::vector<property::Property> properties;
  solver::PropertyResult violations;
  /// Findings dropped by the suppressions file.
  size_t suppressed = 0;

  /// "t.rptrace (N events, M threads)", for setActivity.
  std::string what;

  /// `index`, built (as the stage "index") on first use.
  const analysis::TraceIndex &fullIndex();
  /// Ends the stage that began at `stageStart`: appends it to `stages`.
  double endStage(const char *name);
  std::chrono::steady_clock::time_point stageStart =
      std::chrono::steady_clock::now();
};

/// Reads `o.trace` and runs the predictors `o` asks for, then drops the
/// findings the suppressions file matches. A bad trace or suppressions file
/// is an Error naming the file and position, and so is a trace that is not
/// a sequentially consistent run (its first inconsistency, unless
/// o.allowInconsistent); a truncated trace (allowed by o.allowTruncated) is
/// logged as a warning.
Expected<AnalysisResult> runAnalysis(const AnalysisOptions &o);

} // namespace racepredict::tool
