//===- analysis/schedule_checker.h - Replay a schedule on trace semantics -===//
//
// Executes a (prefix) schedule step by step under the semantics of
// docs/semantics.md: program order, fork/join, locks (both modes), waits and
// barriers in two halves, semaphores, and value-aware reads with stuck
// branches. Used to validate every witness the solver produces (a witness
// the checker rejects is an internal error, never a report) and by the
// brute-force enumerator of the test suite.
//
#pragma once

#include "racepredict/analysis/trace_index.h"

#include <optional>
#include <string>
#include <vector>

namespace racepredict::analysis {

/// One step of a schedule: an event, or (half = true) the release half of a
/// wait / the arrival half of a barrier event.
struct Step {
  EventId event;
  bool half = false;
  bool operator==(const Step &o) const {
    return event == o.event && half == o.half;
  }
};

/// Returns nullopt if `sigma` is a valid prefix schedule, else one sentence
/// naming the first invalid step and why ("step 4 (event 9, t2 acq m): m is
/// held by t1").
std::optional<std::string> checkPrefixSchedule(const TraceIndex &idx,
                                               const std::vector<Step> &sigma);

/// Valid prefix schedule after which `a` and `b` are the next events of
/// their threads (so `sigma·a·b` witnesses the race (a, b)).
std::optional<std::string> checkRaceWitness(const TraceIndex &idx,
                                            const std::vector<Step> &sigma,
                                            EventId a, EventId b);

struct BlockReason; // analysis/deadlock.h

/// Valid prefix schedule after which the threads of `blocked` (their next
/// events, one per thread) form a deadlock of docs/semantics.md: each is
/// blocked for good — a lock held by another of them or by a thread that
/// finished holding it, a join on one of them, a creator among them, or
/// (when every other thread has finished for good) a notify, semaphore post
/// or barrier arrival that can no longer come — and the process has not
/// exited. On success `reasons` (if given) gets each thread's reason, in
/// the order of `blocked`. Independent of the solver and of the candidate
/// generator: it executes the steps on a ModelState.
std::optional<std::string>
checkDeadlockWitness(const TraceIndex &idx, const std::vector<Step> &sigma,
                     const std::vector<EventId> &blocked,
                     std::vector<BlockReason> *reasons = nullptr);

class ModelState;
/// The end of checkRaceWitness: after the steps that led to `st`, `a` and
/// `b` (of two threads) are the next events of their threads and enabled.
/// A schedule built step by step on a ModelState that applied only steps
/// `blocked` allowed is the replay the checker would do, so this alone then
/// completes the check (analysis/closure_witness.cpp).
std::optional<std::string> raceEnabledAfter(const ModelState &st,
                                            const TraceIndex &idx, EventId a,
                                            EventId b);

/// Executes `sigma` on `st` step by step; the first step that is not
/// enabled, as one sentence, or nullopt.
std::optional<std::string> executeSchedule(ModelState &st,
                                           const TraceIndex &idx,
                                           const std::vector<Step> &sigma);

/// Expands a witness as reports list it (events only; a wait stands for its
/// return half, a barrier event for its departure) into steps, inserting
/// each wait's release half / barrier arrival half at the latest point that
/// keeps the schedule valid, if any. Used to check witnesses read back from
/// JSON. Returns nullopt if no placement makes it valid.
std::optional<std::vector<Step>> expandWitness(const TraceIndex &idx,
                                               const std::vector<EventId> &w);

} // namespace racepredict::analysis
