//===- report/report.h - Race reports: text (TSan-like) and JSON ----------===//
#pragma once

#include "racepredict/solver/deadlock_predictor.h"
#include "racepredict/solver/race_predictor.h"
#include "racepredict/trace/trace.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace racepredict::report {

struct ReportContext {
  std::string tracePath;
  std::string version = "0.1.0";
  bool color = false;
  /// Text reports: every witness step instead of the condensed witness.
  bool fullWitness = false;
};

/// One event as a JSON object: event, thread, op, loc (file:line[:col] or
/// the location name for traces without debug info), function, location.
nlohmann::ordered_json eventJson(const trace::Trace &t, trace::EventId e);

/// A schedule with its halves: [{"event": N, "half": B}, ...]
/// (report/witness_reader.h reads it).
nlohmann::ordered_json stepsJson(const std::vector<analysis::Step> &steps);
/// Adds "steps" to a report entry when the schedule has a half (a wait's
/// release, a barrier's arrival), so that reading it back needs no
/// placement of halves: the checked schedule is the written one. Without
/// `witness` it is an empty array that the streamed report fills
/// (streamed_report.h), as the entries' "witness".
void addStepsWithHalves(nlohmann::ordered_json &entry,
                        const std::vector<analysis::Step> &steps,
                        bool witness = true);

/// One entry of the report's "races" array.
nlohmann::ordered_json raceJson(const trace::Trace &t,
                                const solver::RaceFinding &f, bool witness);

/// The JSON report of DESIGN.md (schema_version 1). Without `findings`,
/// "races" is left empty for the streamed report (streamed_report.h).
nlohmann::ordered_json raceReportJson(const trace::Trace &t,
                                      const solver::RaceResult &r,
                                      const ReportContext &ctx,
                                      bool findings = true);

/// A TSan-shaped text report: per race both accesses and the witness as
/// numbered steps with source lines; then a summary line.
void printRaceReport(const trace::Trace &t, const solver::RaceResult &r,
                     const ReportContext &ctx, std::ostream &out);

/// One entry of the report's "deadlocks" array (`witness`: as raceJson).
nlohmann::ordered_json deadlockJson(const trace::Trace &t,
                                    const solver::DeadlockFinding &d,
                                    bool witness);
/// The "deadlocks" array of the JSON report.
nlohmann::ordered_json deadlocksJson(const trace::Trace &t,
                                     const solver::DeadlockResult &r,
                                     const analysis::TraceIndex &idx);

/// One blocked thread's reason as a sentence ("thread t1 waits for lock m2
/// held by t2 (acquired at ...)"); `all` is the whole deadlock (a join
/// names what the joined thread is blocked on).
std::string describeBlock(const trace::Trace &t, const analysis::BlockReason &r,
                          const std::vector<analysis::BlockReason> &all);

/// The "blocked" array of one deadlock: each thread's blocking event (as
/// eventJson), `half_done`, `blocked_on` (kind and resource) and `reason`.
nlohmann::ordered_json blockedJson(const trace::Trace &t,
                                   const solver::DeadlockFinding &d);

/// A --witness-dir file for one deadlock ("kind": "deadlock"): the blocked
/// threads, the witness with its steps (halves), and every thread's state
/// after it (blocked at / finished / running), for the replayer.
nlohmann::ordered_json deadlockWitnessJson(const trace::Trace &t,
                                           const solver::DeadlockFinding &d,
                                           const analysis::TraceIndex &idx,
                                           const std::string &tracePath);

/// Per deadlock: each blocked thread and why, then the witness.
void printDeadlockReport(const trace::Trace &t, const solver::DeadlockResult &r,
                         const analysis::TraceIndex &idx,
                         const ReportContext &ctx, std::ostream &out);

/// SARIF 2.1.0: one result per race / deadlock, witnesses as codeFlows.
nlohmann::ordered_json sarifReport(const trace::Trace &t,
                                   const solver::RaceResult &races,
                                   const solver::DeadlockResult *deadlocks,
                                   const analysis::TraceIndex &idx,
                                   const ReportContext &ctx);

/// One frame of an event's call stack.
struct StackFrame {
  std::string function; ///< "??" when unknown
  std::string location; ///< file:line[:col], or "<no source location>"
};
/// The call stack of an event as the trace knows it, innermost frame
/// first: its own location, the frames it was inlined into, then each call
/// site (trace::Trace::frames). Every report prints stacks through this
/// one function. One "??" frame when the event has no location at all.
std::vector<StackFrame> eventStack(const trace::Trace &t, trace::EventId e);
/// The frame a one-line summary names: the innermost outside system
/// headers (`transfer(...)`, not libstdc++'s __gthread_mutex_lock), else
/// the innermost.
StackFrame summaryFrame(const trace::Trace &t, trace::EventId e);
/// `<indent>#0 fn file:line` lines of eventStack; a run of two or more
/// frames in system headers below the innermost frame is one line.
void printStack(const trace::Trace &t, trace::EventId e, std::ostream &out,
                const char *indent = "    ");
/// The same as `function file:line[:col]` strings (the JSON "stack").
std::vector<std::string> stackFrames(const trace::Trace &t, trace::EventId e);

/// The witness section of a text report: a header naming `what` the
/// schedule ends in, then the condensed witness (witness_condense.h) or,
/// with `full`, every step. `stepText(i)` is step i's line (with its own
/// `<==` note for the finding's steps); reordered synchronisation and
/// reads that kept their value get a note here.
void printWitness(std::ostream &out, const trace::Trace &t,
                  const std::vector<trace::EventId> &steps,
                  const std::vector<bool> &essential,
                  const std::function<std::string(size_t)> &stepText,
                  const std::string &what, bool full);

/// After a race's two accesses, as TSan does: the heap or stack block the
/// location belongs to with its allocation stack, then how many
/// conflicting event pairs and which threads the race stands for.
void printRaceContext(const trace::Trace &t, trace::EventId first,
                      trace::EventId second, std::ostream &out);

/// `t2 rd x 1` (+ ` @file:line`): an event as one readable line.
std::string describeEvent(const trace::Trace &t, trace::EventId e);

/// The location two racing events touch: the accessed one (a free races
/// with an access of the block it ends).
std::string raceLocation(const trace::Trace &t, trace::EventId a,
                         trace::EventId b);
/// How a report names one side of a race: `Read of size 4`, `Free of a
/// 16-byte block` (capitalised or not).
std::string accessWords(const trace::Event &ev, bool capital);

} // namespace racepredict::report
