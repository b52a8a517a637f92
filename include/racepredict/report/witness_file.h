//===- report/witness_file.h - One JSON file per witness schedule ---------===//
//
// `--witness-dir` writes one file per finding: what it is (kind, the events
// involved, as in the report) plus the schedule as events and as steps (with
// the release halves of waits and the arrival halves of barriers). These
// files are the input of `racepredict replay --schedule` and of
// `check-witness`.
//
#pragma once

#include "racepredict/solver/deadlock_predictor.h"
#include "racepredict/solver/race_predictor.h"
#include "racepredict/support/error.h"
#include "racepredict/trace/trace.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace racepredict::report {

/// {"tool", "kind": "race", "trace", "first", "second", "witness", "steps"}.
nlohmann::ordered_json raceWitnessJson(const trace::Trace &t,
                                       const solver::RaceFinding &f,
                                       const std::string &tracePath);
// Deadlock witness files are report::deadlockWitnessJson (report.h):
// {"tool", "kind": "deadlock", "deadlock_kind", "trace", "threads",
// "blocked" (each thread's blocked event and what it blocks on), "witness",
// "steps", "state"}.

/// `race-<first>-<second>.json`, `deadlock-<blocked>-<blocked>….json`.
std::string raceWitnessName(const solver::RaceFinding &f);
std::string deadlockWitnessName(const solver::DeadlockFinding &f);

/// Writes one file per finding into `dir` (created if missing); returns
/// the paths in order (races first), or an Error naming the file. `idx`
/// indexes `t`; only deadlocks need it (null when `deadlocks` is).
Expected<std::vector<std::string>> writeWitnessFiles(
    const std::string &dir, const trace::Trace &t,
    const solver::RaceResult &races, const solver::DeadlockResult *deadlocks,
    const analysis::TraceIndex *idx, const std::string &tracePath);

} // namespace racepredict::report
